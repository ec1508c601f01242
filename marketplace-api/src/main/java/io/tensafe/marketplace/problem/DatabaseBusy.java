package io.tensafe.marketplace.problem;

import java.sql.SQLException;

/**
 * Recognises the connection pool's "no connection within the acquisition timeout" failure (Agroal
 * reports it as an {@link SQLException} whose message names the acquisition timeout, wrapped by
 * Hibernate), and a database that cannot be reached or is shutting down (SQLSTATE class 08, or
 * 57P01–57P03), so either can answer 503 with {@code Retry-After} instead of 500.
 */
final class DatabaseBusy {
  /** Admin shutdown, crash shutdown, cannot connect now (SQLSTATE class 57P). */
  private static final java.util.Set<String> SHUTTING_DOWN =
      java.util.Set.of("57P01", "57P02", "57P03");

  private DatabaseBusy() {}

  /** True when {@code t} or one of its causes is the pool's acquisition timeout. */
  static boolean causedBy(Throwable t) {
    return Causes.any(
        t,
        c ->
            c instanceof SQLException e
                && e.getMessage() != null
                && e.getMessage().contains("acquisition timeout"));
  }

  /**
   * True when {@code t} or one of its causes says the database cannot be reached or is shutting
   * down (a restart, a fail-over).
   */
  static boolean unreachable(Throwable t) {
    return Causes.any(
        t,
        c ->
            c instanceof SQLException e
                && e.getSQLState() != null
                && (e.getSQLState().startsWith("08") || SHUTTING_DOWN.contains(e.getSQLState())));
  }
}
