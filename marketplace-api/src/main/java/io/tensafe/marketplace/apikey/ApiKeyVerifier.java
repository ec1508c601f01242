package io.tensafe.marketplace.apikey;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Checks a presented API key: well-formed, known prefix, SHA-256 equal in constant time, not
 * revoked, not suspended, its organisation's users not all suspended. Reads the database on every
 * call, so a revocation takes effect on the very next request.
 */
@ApplicationScoped
public class ApiKeyVerifier {
  private static final Pattern FORMAT = Pattern.compile("tsk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}");

  @Inject EntityManager em;

  /**
   * The key's principal, or empty when {@code presented} is not a valid, usable key. A short
   * transaction of its own: the connection is not held for the rest of the request.
   */
  @Transactional
  public Optional<ApiKeyPrincipal> verify(String presented) {
    if (presented == null || !FORMAT.matcher(presented).matches()) {
      return Optional.empty();
    }
    ApiKey key =
        em.createQuery("from ApiKey where prefix = :p", ApiKey.class)
            .setParameter("p", presented.substring(0, 16))
            .getResultStream()
            .findFirst()
            .orElse(null);
    if (key == null
        || !MessageDigest.isEqual(ApiKeyService.sha256(presented), key.secretSha256)
        || key.revokedAt != null
        || key.suspendedAt != null) {
      return Optional.empty();
    }
    return Optional.of(
        new ApiKeyPrincipal(
            key.id,
            key.prefix,
            key.organisationId,
            em.createQuery(
                    "select s.id.adapterId from ApiKeyScope s where s.id.apiKeyId = :k", UUID.class)
                .setParameter("k", key.id)
                .getResultList()));
  }
}
