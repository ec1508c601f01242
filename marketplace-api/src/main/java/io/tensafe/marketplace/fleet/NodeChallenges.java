package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.FleetChallenge;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.crypto.RecipientEntry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Registration challenges (table {@code node_challenge}): a node proves it holds its fleet's
 * private key before it may register into the fleet. A challenge is issued to one credential for
 * one fleet and node name, lives {@link #LIFETIME}, and is consumed by the first registration that
 * presents it, right or wrong. The marketplace keeps only the nonce's SHA-256.
 */
@ApplicationScoped
public class NodeChallenges {
  /** How long a challenge may be answered. */
  public static final Duration LIFETIME = Duration.ofMinutes(2);

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  @Inject EntityManager em;
  @Inject JsonWebToken token;
  @Inject FleetService fleets;

  /** Issues a challenge for this credential to join {@code r.fleetId()} as {@code r.name()}. */
  @Transactional
  public NodeChallenge issue(NodeChallengeRequest r) {
    NodeFleet fleet =
        fleets
            .byRef(r.fleetId())
            .orElseThrow(
                () -> ProblemTypes.validation("fleet '" + r.fleetId() + "' is not registered"));
    FleetPublicKey key;
    try {
      key =
          KeyFiles.parseFleetPublic(
              "fleet " + fleet.fleetRef, fleet.document.getBytes(StandardCharsets.UTF_8));
    } catch (TgspException e) {
      throw new IllegalStateException("stored fleet key " + fleet.fleetRef + " does not parse", e);
    }
    UUID id = UUID.randomUUID();
    byte[] nonce = new byte[FleetChallenge.NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    RecipientEntry wrapped = FleetChallenge.wrap(key, id.toString(), r.name(), nonce, RANDOM);
    OffsetDateTime expires = OffsetDateTime.now(ZoneOffset.UTC).plus(LIFETIME);
    em.createNativeQuery(
            """
            INSERT INTO node_challenge (id, client_id, fleet_id, node_name, nonce_sha256,
                expires_at)
            VALUES (:id, :client, :fleet, :name, :sha, :expires)
            """)
        .setParameter("id", id)
        .setParameter("client", token.getSubject())
        .setParameter("fleet", fleet.id)
        .setParameter("name", r.name())
        .setParameter("sha", sha256(nonce))
        .setParameter("expires", expires)
        .executeUpdate();
    return new NodeChallenge(
        id.toString(),
        wrapped.recipientId(),
        B64.encodeToString(wrapped.x25519Ephemeral()),
        B64.encodeToString(wrapped.mlKemCiphertext()),
        B64.encodeToString(wrapped.wrappedKey()),
        expires);
  }

  /**
   * Consumes {@code proof}: it must answer an unexpired, unused challenge issued to this credential
   * for {@code fleet} and {@code name}, with the right nonce. Joins the caller's transaction.
   *
   * @throws ApiProblem 403 naming what did not match (never the nonce)
   */
  public void consume(FleetProof proof, NodeFleet fleet, String name) {
    Optional<IssuedChallenge> issued =
        Rows.first(
            em.createNativeQuery(
                    """
                UPDATE node_challenge SET used_at = now()
                WHERE id = :id AND used_at IS NULL
                RETURNING client_id, fleet_id, node_name, nonce_sha256, expires_at > now()
                """)
                .setParameter("id", UUID.fromString(proof.challengeId())),
            IssuedChallenge.class);
    if (issued.isEmpty()) {
      throw refused("the challenge does not exist or was already used; ask for a new one");
    }
    IssuedChallenge c = issued.get();
    if (!token.getSubject().equals(c.clientId())
        || !fleet.id.equals(c.fleetId())
        || !name.equals(c.nodeName())) {
      throw refused("the challenge was issued for another credential, fleet or node name");
    }
    if (!c.live()) {
      throw refused("the challenge expired; ask for a new one");
    }
    byte[] nonce;
    try {
      nonce = Base64.getUrlDecoder().decode(proof.nonce());
    } catch (IllegalArgumentException e) {
      nonce = new byte[0];
    }
    if (!MessageDigest.isEqual(sha256(nonce), c.nonceSha256())) {
      throw refused("the answer does not match: this node does not hold the fleet's private key");
    }
  }

  /** A challenge as consumed: whom it was issued to, and whether it had not yet expired. */
  private record IssuedChallenge(
      String clientId, UUID fleetId, String nodeName, byte[] nonceSha256, boolean live) {}

  private static ApiProblem refused(String detail) {
    return new ApiProblem(ProblemKind.FORBIDDEN, 403, "Fleet proof refused", detail);
  }

  private static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
