package io.tensafe.marketplace.limits;

import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Slots counted in PostgreSQL ({@code limit_lease}), so a limit holds for every replica together: a
 * lease is a row held by one replica ({@code holder}) until it is given back or expires. Each
 * replica renews its own leases ({@link #renew}); a replica that dies stops renewing, and its
 * leases lapse after the lease time. Taking a slot locks the subject (a transaction-scoped advisory
 * lock), counts its live leases and inserts one if fewer than the limit are held, in a transaction
 * of its own. Thread-safe.
 */
final class SharedSlots implements SlotLimiter {
  private final EntityManager em;
  private final UUID holder;
  private final Duration ttl;

  /**
   * @param holder this replica's id, fixed for the process's life
   * @param ttl how long a lease lives without renewal, ≥ 1 s
   */
  SharedSlots(EntityManager em, UUID holder, Duration ttl) {
    if (ttl.toSeconds() < 1) {
      throw new IllegalArgumentException("a lease must live at least a second");
    }
    this.em = em;
    this.holder = holder;
    this.ttl = ttl;
  }

  @Override
  public Optional<UUID> take(String kind, UUID subject, int max) {
    UUID lease = UUID.randomUUID();
    int inserted =
        QuarkusTransaction.joiningExisting()
            .call(
                () -> {
                  em.createNativeQuery(
                          "SELECT pg_advisory_xact_lock(hashtextextended(CAST(:s AS text), 11))")
                      .setParameter("s", subject)
                      .getSingleResult();
                  return em.createNativeQuery(
                          """
                          INSERT INTO limit_lease (id, kind, subject, holder, expires_at)
                          SELECT :id, :kind, :s, :holder, now() + make_interval(secs => :ttl)
                          WHERE (SELECT count(*) FROM limit_lease
                                 WHERE subject = :s AND expires_at > now()) < :max
                          """)
                      .setParameter("id", lease)
                      .setParameter("kind", kind)
                      .setParameter("s", subject)
                      .setParameter("holder", holder)
                      .setParameter("ttl", (double) ttl.toSeconds())
                      .setParameter("max", max)
                      .executeUpdate();
                });
    return inserted == 1 ? Optional.of(lease) : Optional.empty();
  }

  @Override
  public void give(UUID lease) {
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery("DELETE FROM limit_lease WHERE id = :id")
                    .setParameter("id", lease)
                    .executeUpdate());
  }

  @Override
  public int[] held(List<UUID> subjects) {
    if (subjects.isEmpty()) {
      return new int[0];
    }
    List<?> rows =
        QuarkusTransaction.joiningExisting()
            .call(
                () ->
                    em.createNativeQuery(
                            "SELECT subject, count(*) FROM limit_lease"
                                + " WHERE subject = ANY (:s) AND expires_at > now() GROUP BY subject")
                        .setParameter("s", subjects.toArray(UUID[]::new))
                        .getResultList());
    int[] held = new int[subjects.size()];
    for (Object row : rows) {
      Object[] r = (Object[]) row;
      held[subjects.indexOf((UUID) r[0])] = ((Number) r[1]).intValue();
    }
    return held;
  }

  /**
   * Extends this replica's leases by the lease time and deletes leases that lapsed over a minute
   * ago (any replica's); returns the leases renewed.
   */
  int renew() {
    return QuarkusTransaction.requiringNew()
        .call(
            () -> {
              em.createNativeQuery(
                      "DELETE FROM limit_lease WHERE expires_at < now() - interval '1 minute'")
                  .executeUpdate();
              return em.createNativeQuery(
                      "UPDATE limit_lease SET expires_at = now() + make_interval(secs => :ttl)"
                          + " WHERE holder = :holder")
                  .setParameter("ttl", (double) ttl.toSeconds())
                  .setParameter("holder", holder)
                  .executeUpdate();
            });
  }
}
