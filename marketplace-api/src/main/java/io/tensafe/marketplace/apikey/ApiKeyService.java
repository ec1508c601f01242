package io.tensafe.marketplace.apikey;

import io.tensafe.marketplace.adapter.Adapter;
import io.tensafe.marketplace.adapter.AdapterRepository;
import io.tensafe.marketplace.audit.AuditLog;
import io.tensafe.marketplace.identity.AppUser;
import io.tensafe.marketplace.identity.CurrentUser;
import io.tensafe.marketplace.organisation.OrganisationService;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * Client API keys of the organisations the current user belongs to (their personal one unless a
 * request names another). A key is {@code tsk_<12 hex>_<43 base64url chars>} (6 + 256 random bits);
 * the database keeps its prefix and the SHA-256 of the whole string, which suffices for keys of
 * this entropy (no password stretching needed).
 */
@ApplicationScoped
public class ApiKeyService {
  private static final SecureRandom RANDOM = new SecureRandom();

  @Inject ApiKeyRepository keys;
  @Inject ApiKeyScopeRepository scopes;
  @Inject AdapterRepository adapters;
  @Inject CurrentUser current;
  @Inject AuditLog audit;
  @Inject OrganisationService organisations;

  @Transactional
  public CreatedApiKey create(ApiKeyRequest request) {
    AppUser user = current.user();
    OrganisationService.Membership organisation = organisations.require(request.organisation());
    byte[] id = new byte[6];
    byte[] secret = new byte[32];
    RANDOM.nextBytes(id);
    RANDOM.nextBytes(secret);
    String prefix = "tsk_" + HexFormat.of().formatHex(id);
    String key = prefix + "_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    ApiKey row = new ApiKey();
    row.id = UUID.randomUUID();
    row.organisationId = organisation.organisationId();
    row.prefix = prefix;
    row.secretSha256 = sha256(key);
    row.name = request.name();
    row.createdAt = OffsetDateTime.now();
    if (request.maxPrice() != null) {
      row.maxPriceCurrency = request.maxPrice().currency();
      row.maxPromptMicrosPer1kTokens = request.maxPrice().promptMicrosPer1kTokens();
      row.maxCompletionMicrosPer1kTokens = request.maxPrice().completionMicrosPer1kTokens();
    }
    row.createdBy = user.id;
    keys.persist(row);
    List<String> scoped = request.adapters() == null ? List.of() : List.copyOf(request.adapters());
    for (String ref : scoped) {
      Adapter adapter =
          adapters
              .byRef(ref)
              .orElseThrow(() -> ProblemTypes.validation("adapter '" + ref + "' does not exist"));
      ApiKeyScope scope = new ApiKeyScope();
      scope.id = new ApiKeyScope.Id(row.id, adapter.id);
      scopes.persist(scope);
    }
    audit.record(user, "api-key.create", "api-key", prefix, "{}");
    return new CreatedApiKey(key, view(row, organisation.slug(), scoped));
  }

  /** Keys of {@code organisation} (a slug the caller belongs to; null: their personal one). */
  public List<ApiKeyView> list(String organisation) {
    OrganisationService.Membership membership = organisations.require(organisation);
    List<ApiKeyView> out = new ArrayList<>();
    for (ApiKey k : keys.ofOrganisation(membership.organisationId())) {
      out.add(view(k, membership.slug(), scopes.adapterRefs(k.id)));
    }
    return out;
  }

  /** Every tenant's keys, newest first, with their organisation's slug (admins). */
  public List<ApiKeyView> all() {
    List<ApiKeyView> out = new ArrayList<>();
    for (ApiKeyRepository.KeyOfOrganisation r : keys.allWithOrganisation()) {
      out.add(view(r.key(), r.organisation(), scopes.adapterRefs(r.key().id)));
    }
    return out;
  }

  /** Revokes a key of an organisation the caller belongs to; false if there is no such key. */
  @Transactional
  public boolean revoke(String prefix) {
    AppUser user = current.user();
    ApiKey key = keys.byPrefixIn(prefix, organisations.memberOf()).orElse(null);
    if (key == null) {
      return false;
    }
    if (key.revokedAt == null) {
      key.revokedAt = OffsetDateTime.now();
      audit.record(user, "api-key.revoke", "api-key", prefix, "{}");
    }
    return true;
  }

  private static ApiKeyView view(ApiKey k, String organisation, List<String> adapters) {
    return new ApiKeyView(
        k.prefix, organisation, k.name, adapters, k.createdAt, k.revokedAt, k.priceCap());
  }

  static byte[] sha256(String key) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
