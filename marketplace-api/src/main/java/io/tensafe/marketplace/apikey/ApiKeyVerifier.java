package io.tensafe.marketplace.apikey;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Checks a presented API key: well-formed, known prefix, SHA-256 equal in constant time, not
 * revoked, not suspended, the user who created it not suspended, and at least one member of its
 * organisation not suspended. Reads the database on every call, so a revocation or a suspension
 * takes effect on the very next request.
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
    List<?> rows =
        em.createNativeQuery(
                """
                SELECT k.id, k.prefix, k.organisation_id, k.secret_sha256,
                       k.revoked_at IS NULL AND k.suspended_at IS NULL
                         AND NOT EXISTS (SELECT 1 FROM app_user u
                                         WHERE u.id = k.created_by AND u.suspended_at IS NOT NULL)
                         AND EXISTS (SELECT 1 FROM organisation_member m
                                     JOIN app_user u ON u.id = m.user_id
                                     WHERE m.organisation_id = k.organisation_id
                                       AND u.suspended_at IS NULL),
                       (SELECT coalesce(string_agg(s.adapter_id::text, ','), '')
                        FROM api_key_adapter s WHERE s.api_key_id = k.id),
                       k.max_price_currency, k.max_prompt_micros_per_1k_tokens,
                       k.max_completion_micros_per_1k_tokens
                FROM api_key k WHERE k.prefix = :p
                """)
            .setParameter("p", presented.substring(0, 16))
            .getResultList();
    if (rows.isEmpty()) {
      return Optional.empty();
    }
    Object[] key = (Object[]) rows.getFirst();
    if (!MessageDigest.isEqual(ApiKeyService.sha256(presented), (byte[]) key[3])
        || !(Boolean) key[4]) {
      return Optional.empty();
    }
    return Optional.of(
        new ApiKeyPrincipal(
            (UUID) key[0],
            (String) key[1],
            (UUID) key[2],
            scope((String) key[5]),
            key[6] == null
                ? null
                : new PriceCap(
                    key[6].toString().trim(),
                    ((Number) key[7]).longValue(),
                    ((Number) key[8]).longValue())));
  }

  /**
   * The scope's adapter ids from their comma-joined text (a native array would cost Hibernate an
   * exception per query).
   */
  private static List<UUID> scope(String joined) {
    return joined.isEmpty()
        ? List.of()
        : java.util.Arrays.stream(joined.split(",")).map(UUID::fromString).toList();
  }
}
