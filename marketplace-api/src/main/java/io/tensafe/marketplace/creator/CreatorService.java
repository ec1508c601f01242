package io.tensafe.marketplace.creator;

import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.AppUser;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.identity.OrganisationRepository;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.CreatorPublicKey;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.crypto.TrustStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Creators and their signing keys, always scoped to the current user's organisation. */
@ApplicationScoped
public class CreatorService {
  @Inject CreatorRepository creators;
  @Inject SigningKeyRepository signingKeys;
  @Inject OrganisationRepository organisations;
  @Inject CurrentUser current;
  @Inject AuditLog audit;

  /** The current user's creator, if their organisation has registered a key yet. */
  public Optional<Creator> currentCreator() {
    AppUser user = current.user();
    return creators.ofOrganisation(user.organisationId);
  }

  /** The current account's creator id, fixed or proposed ({@link CreatorProfile}). */
  @Transactional
  public CreatorProfile profile() {
    Optional<Creator> creator = currentCreator();
    if (creator.isPresent()) {
      return CreatorProfile.of(creator.get().creatorRef, true);
    }
    String slug = organisations.findById(current.user().organisationId).slug;
    String proposed = slug;
    for (int n = 2; creators.refTaken(proposed); n++) {
      proposed = slug + "-" + n;
    }
    return CreatorProfile.of(proposed, false);
  }

  @Transactional
  public SigningKeyView registerKey(byte[] publicKeyFile) {
    CreatorPublicKey key;
    try {
      key = KeyFiles.parseCreatorPublic("public key file", publicKeyFile);
    } catch (TgspException e) {
      throw new ApiProblem(ProblemKind.KEY_INVALID, e.getMessage());
    }
    AppUser user = current.user();
    Creator creator = currentCreator().orElseGet(() -> newCreator(user, key.creatorId()));
    if (!creator.creatorRef.equals(key.creatorId())) {
      throw new ApiProblem(
          ProblemKind.KEY_INVALID,
          "the key is for creator id '"
              + key.creatorId()
              + "' but this account's creator id is '"
              + creator.creatorRef
              + "' (GET /api/creator/profile, or the upload page, shows it); make a key with"
              + " ./tensafe tgsp keygen creator --creator-id "
              + creator.creatorRef);
    }
    if (signingKeys.findById(key.keyId()) != null) {
      throw ProblemTypes.conflict("signing key " + key.keyId() + " is already registered");
    }
    SigningKey row = new SigningKey();
    row.keyId = key.keyId();
    row.creatorId = creator.id;
    row.document =
        new String(
            io.tensafe.tgsp.json.CanonicalJson.encode(KeyFiles.creatorPublicJson(key)),
            StandardCharsets.UTF_8);
    row.registeredAt = OffsetDateTime.now();
    row.registeredBy = user.id;
    signingKeys.persist(row);
    audit.record(user, "signing-key.register", "signing-key", row.keyId, "{}");
    return SigningKeyView.of(row, creator.creatorRef);
  }

  public List<SigningKeyView> keys() {
    Optional<Creator> creator = currentCreator();
    if (creator.isEmpty()) {
      return List.of();
    }
    return signingKeys.ofCreator(creator.get().id).stream()
        .map(k -> SigningKeyView.of(k, creator.get().creatorRef))
        .toList();
  }

  /** Revokes one of the current creator's keys; false if no such key is theirs. */
  @Transactional
  public boolean revokeKey(String keyId) {
    Optional<Creator> creator = currentCreator();
    SigningKey key = signingKeys.findById(keyId);
    if (creator.isEmpty() || key == null || !key.creatorId.equals(creator.get().id)) {
      return false;
    }
    if (key.revokedAt == null) {
      AppUser user = current.user();
      key.revokedAt = OffsetDateTime.now();
      key.revokedBy = user.id;
      audit.record(user, "signing-key.revoke", "signing-key", keyId, "{}");
    }
    return true;
  }

  /**
   * Every creator's registered, unrevoked public key document (what nodes verify packages with).
   */
  public List<String> unrevokedKeyDocuments() {
    return signingKeys.unrevoked().stream().map(k -> k.document).toList();
  }

  /** The creator's unrevoked keys: the only keys a package upload is verified against. */
  public TrustStore trustStore(Creator creator) {
    List<CreatorPublicKey> keys = new ArrayList<>();
    for (SigningKey k : signingKeys.unrevokedOf(creator.id)) {
      try {
        keys.add(KeyFiles.parseCreatorPublic(k.keyId, k.document.getBytes(StandardCharsets.UTF_8)));
      } catch (TgspException e) {
        throw new IllegalStateException("stored signing key " + k.keyId + " no longer parses", e);
      }
    }
    return TrustStore.of(keys);
  }

  private Creator newCreator(AppUser user, String creatorRef) {
    if (creators.refTaken(creatorRef)) {
      throw ProblemTypes.conflict("creator id '" + creatorRef + "' belongs to another account");
    }
    Creator c = new Creator();
    c.id = UUID.randomUUID();
    c.organisationId = user.organisationId;
    c.creatorRef = creatorRef;
    c.createdAt = OffsetDateTime.now();
    creators.persist(c);
    audit.record(user, "creator.create", "creator", c.id.toString(), "{}");
    return c;
  }
}
