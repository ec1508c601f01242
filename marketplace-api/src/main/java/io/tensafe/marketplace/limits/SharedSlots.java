package io.tensafe.marketplace.limits;

import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tensafe.marketplace.sql.Rows;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Slots counted in PostgreSQL ({@code limit_lease}), so a limit holds for every replica together: a
 * lease is a row held by one replica ({@code holder}) until it is given back or expires. Each
 * replica renews its own leases ({@link #renew}); a replica that dies stops renewing, and its
 * leases lapse after the lease time. Taking a slot is one call of {@code take_limit_lease} (V22: an
 * advisory lock on the subject, a count of its live leases, an insert if fewer than the limit are
 * held), in the caller's transaction when there is one (so a request's admission and its node slot
 * commit or roll back together, and no second connection is needed while the first is held), else
 * on its own. A caller taking several subjects' slots in one transaction takes them in ascending id
 * order, so two transactions never wait on each other's locks. Giving back commits at once and is
 * never rolled back with a caller's transaction (a lease that outlived its request would be renewed
 * for as long as its replica lives). Thread-safe.
 */
final class SharedSlots implements SlotLimiter {
  private final EntityManager em;
  private final AgroalDataSource dataSource;
  private final TransactionManager transactions;
  private final UUID holder;
  private final Duration ttl;

  /**
   * @param holder this replica's id, fixed for the process's life
   * @param ttl how long a lease lives without renewal, ≥ 1 s
   */
  SharedSlots(
      EntityManager em,
      AgroalDataSource dataSource,
      TransactionManager transactions,
      UUID holder,
      Duration ttl) {
    if (ttl.toSeconds() < 1) {
      throw new IllegalArgumentException("a lease must live at least a second");
    }
    this.em = em;
    this.dataSource = dataSource;
    this.transactions = transactions;
    this.holder = holder;
    this.ttl = ttl;
  }

  private double ttlSeconds() {
    return ttl.toSeconds();
  }

  private boolean inTransaction() {
    try {
      return transactions.getStatus() != Status.STATUS_NO_TRANSACTION;
    } catch (SystemException e) {
      throw new IllegalStateException("the transaction manager cannot say", e);
    }
  }

  @Override
  public Optional<UUID> take(String kind, UUID subject, int max) {
    UUID lease = UUID.randomUUID();
    Object[] args = {lease, kind, subject, holder, ttlSeconds(), max};
    boolean taken;
    if (inTransaction()) {
      var query = em.createNativeQuery("SELECT take_limit_lease(?1, ?2, ?3, ?4, ?5, ?6)");
      for (int i = 0; i < args.length; i++) {
        query.setParameter(i + 1, args[i]);
      }
      taken = (Boolean) query.getSingleResult();
    } else {
      taken = (Boolean) autocommit("SELECT take_limit_lease(?, ?, ?, ?, ?, ?)", args);
    }
    return taken ? Optional.of(lease) : Optional.empty();
  }

  /**
   * What {@link #admitKey} decided: 0 when admitted, the seconds to wait (≥ 1) when the bucket was
   * empty, or -1 when every slot was held; and the key's bucket right after it.
   */
  record KeyAnswer(int answer, KeyRateLevel level) {}

  /**
   * One call of {@code admit_key_request} (V22) in a transaction of its own: a request from {@code
   * key}'s bucket of {@code perMinute}, then one of its {@code maxInFlight} slots as lease {@code
   * lease}; then, still holding the bucket's row, its level ({@link #level}), so the level is what
   * this request left.
   */
  KeyAnswer admitKey(UUID key, int perMinute, UUID lease, int maxInFlight) {
    return QuarkusTransaction.requiringNew()
        .call(
            () -> {
              int answer =
                  ((Number)
                          em.createNativeQuery(
                                  "SELECT admit_key_request(CAST(:key AS uuid),"
                                      + " CAST(:perMinute AS double precision), CAST(:lease AS"
                                      + " uuid), CAST(:holder AS uuid), CAST(:ttl AS double"
                                      + " precision), CAST(:max AS integer))")
                              .setParameter("key", key)
                              .setParameter("perMinute", (double) perMinute)
                              .setParameter("lease", lease)
                              .setParameter("holder", holder)
                              .setParameter("ttl", ttlSeconds())
                              .setParameter("max", maxInFlight)
                              .getSingleResult())
                      .intValue();
              return new KeyAnswer(answer, level(key, perMinute));
            });
  }

  /**
   * {@code key}'s bucket of {@code perMinute} refilled to now (full when it has no row: no request
   * drew from it yet, or the table was emptied by a crash, ADR 0020), read in the caller's
   * transaction when there is one, else in one of its own. Read in the transaction that drew from
   * the bucket, whose row lock it still holds, it is exactly what that draw left.
   */
  KeyRateLevel level(UUID key, int perMinute) {
    KeyLevelQuery read = new KeyLevelQuery(perMinute, key);
    return QuarkusTransaction.joiningExisting()
        .call(
            () ->
                em.unwrap(org.hibernate.Session.class)
                    .doReturningWork(
                        c -> {
                          try (PreparedStatement s = c.prepareStatement(KeyLevelQuery.SQL)) {
                            read.bind(s, 1);
                            try (ResultSet rows = s.executeQuery()) {
                              return read.level(rows);
                            }
                          }
                        }));
  }

  /**
   * One call of {@code take_key_request} (V26) on a connection of its own: a request from {@code
   * key}'s bucket of {@code perMinute}, the bucket {@link #admitKey} draws from, and no slot.
   * Returns 0 when taken, else the seconds to wait (≥ 1).
   */
  int takeKeyRequest(UUID key, int perMinute) {
    return ((Number) autocommit("SELECT take_key_request(?, ?)", key, (double) perMinute))
        .intValue();
  }

  /** Runs one statement on a connection of its own, committed at once; its first column. */
  private Object autocommit(String sql, Object... args) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        s.setObject(i + 1, args[i]);
      }
      if (!s.execute()) {
        return s.getUpdateCount();
      }
      try (ResultSet r = s.getResultSet()) {
        return r.next() ? r.getObject(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("the limits' database call failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void give(UUID lease) {
    giveAll(List.of(lease));
  }

  /** Gives back several leases in one statement. */
  @Override
  public void giveAll(List<UUID> leases) {
    if (inTransaction()) {
      QuarkusTransaction.requiringNew().run(() -> deleteInTransaction(leases));
    } else {
      try (Connection c = dataSource.getConnection();
          PreparedStatement s = c.prepareStatement("DELETE FROM limit_lease WHERE id = ANY (?)")) {
        s.setArray(1, c.createArrayOf("uuid", leases.toArray()));
        s.executeUpdate();
      } catch (SQLException e) {
        throw new IllegalStateException("giving back limit leases failed: " + e.getMessage(), e);
      }
    }
  }

  @Override
  public void giveAllWithTransaction(List<UUID> leases) {
    if (!inTransaction()) {
      giveAll(leases);
      return;
    }
    deleteInTransaction(leases);
  }

  /** Deletes {@code leases} in the current transaction. */
  private void deleteInTransaction(List<UUID> leases) {
    em.createNativeQuery("DELETE FROM limit_lease WHERE id = ANY (:ids)")
        .setParameter("ids", leases.toArray(UUID[]::new))
        .executeUpdate();
  }

  @Override
  public int[] held(List<UUID> subjects) {
    if (subjects.isEmpty()) {
      return new int[0];
    }
    List<Held> rows =
        QuarkusTransaction.joiningExisting()
            .call(
                () ->
                    Rows.list(
                        em.createNativeQuery(
                                "SELECT subject, count(*) FROM limit_lease"
                                    + " WHERE subject = ANY (:s) AND expires_at > now()"
                                    + " GROUP BY subject")
                            .setParameter("s", subjects.toArray(UUID[]::new)),
                        Held.class));
    int[] held = new int[subjects.size()];
    for (Held row : rows) {
      held[subjects.indexOf(row.subject())] = row.leases();
    }
    return held;
  }

  /** A subject's live leases, as {@link #held} counts them. */
  private record Held(UUID subject, int leases) {}

  /**
   * Extends this replica's leases by the lease time and deletes leases that lapsed over a minute
   * ago (any replica's); returns the leases renewed. A lease whose row another transaction holds (a
   * request's end deleting it, {@code end_request}) is skipped, never waited for: waiting, in
   * whatever order the rows lie, could deadlock with an end that deletes two of them.
   */
  int renew() {
    return QuarkusTransaction.requiringNew()
        .call(
            () -> {
              em.createNativeQuery(
                      "DELETE FROM limit_lease WHERE id IN (SELECT id FROM limit_lease"
                          + " WHERE expires_at < now() - interval '1 minute'"
                          + " FOR UPDATE SKIP LOCKED)")
                  .executeUpdate();
              return em.createNativeQuery(
                      "UPDATE limit_lease SET expires_at = now() + make_interval(secs => :ttl)"
                          + " WHERE id IN (SELECT id FROM limit_lease WHERE holder = :holder"
                          + " FOR UPDATE SKIP LOCKED)")
                  .setParameter("ttl", ttlSeconds())
                  .setParameter("holder", holder)
                  .executeUpdate();
            });
  }
}
