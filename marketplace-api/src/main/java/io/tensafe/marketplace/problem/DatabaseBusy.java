package io.tensafe.marketplace.problem;

import java.sql.SQLException;

/**
 * Recognises the connection pool's "no connection within the acquisition timeout" failure (Agroal
 * reports it as an {@link SQLException} whose message names the acquisition timeout, wrapped by
 * Hibernate), so it can answer 503 with {@code Retry-After} instead of 500.
 */
final class DatabaseBusy {
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
}
