package io.tensafe.marketplace.limits;

import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.persistence.EntityManager;
import java.util.UUID;

/**
 * Requests per minute per API key for every replica together: the token bucket is a row of {@code
 * rate_bucket}, refilled and taken from in one upsert (the row lock orders replicas). Thread-safe.
 */
final class SharedRateLimiter implements RateLimiter {
  private final EntityManager em;
  private final int perMinute;

  /**
   * @param perMinute requests a key may start per minute, ≥ 1
   */
  SharedRateLimiter(EntityManager em, int perMinute) {
    if (perMinute < 1) {
      throw new IllegalArgumentException("requests per minute must be >= 1, was " + perMinute);
    }
    this.em = em;
    this.perMinute = perMinute;
  }

  @Override
  public int perMinute() {
    return perMinute;
  }

  /** The bucket's level now, refilled since its last use and capped at a minute's worth. */
  private static final String LEVEL =
      "least(:cap, b.available + extract(epoch FROM now() - b.refilled_at) * :cap / 60.0)";

  private static final String TAKE =
      """
      INSERT INTO rate_bucket AS b (key_id, available, granted, refilled_at)
      VALUES (:k, :cap - 1, true, now())
      ON CONFLICT (key_id) DO UPDATE SET
        available = CASE WHEN %1$s >= 1 THEN %1$s - 1 ELSE %1$s END,
        granted = %1$s >= 1,
        refilled_at = now()
      RETURNING b.granted, b.available
      """
          .formatted(LEVEL);

  @Override
  public int tryAcquire(UUID key) {
    Object[] row =
        QuarkusTransaction.joiningExisting()
            .call(
                () ->
                    (Object[])
                        em.createNativeQuery(TAKE)
                            .setParameter("k", key)
                            .setParameter("cap", (double) perMinute)
                            .getSingleResult());
    if ((Boolean) row[0]) {
      return 0;
    }
    double available = ((Number) row[1]).doubleValue();
    return Math.max(1, (int) Math.ceil((1 - available) * 60.0 / perMinute));
  }
}
