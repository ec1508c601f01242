package io.tensafe.marketplace.limits;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * The read of an API key's requests-per-minute bucket refilled to now, as JDBC text and parameters,
 * so that a caller whose own call drew from the bucket can send it in the same round trip, as the
 * next statement of its transaction ({@code "SELECT * FROM admit(...); " + sql()}): that call's row
 * lock on the bucket is still held, so the level read is exactly what the call left (ADR 0020's
 * bucket, {@code rate_bucket}).
 *
 * @param perMinute the key's requests per minute (≥ 1)
 * @param key the API key
 */
public record KeyLevelQuery(int perMinute, UUID key) {
  /** The statement: one row with one column, the level; no row for a bucket never drawn from. */
  public static final String SQL =
      "SELECT least(CAST(? AS double precision), available"
          + " + extract(epoch FROM clock_timestamp() - refilled_at)"
          + " * CAST(? AS double precision) / 60.0) FROM rate_bucket WHERE key_id = CAST(? AS uuid)";

  /** Binds this read's parameters from index {@code first}; returns the next free index. */
  public int bind(PreparedStatement s, int first) throws SQLException {
    s.setDouble(first, perMinute);
    s.setDouble(first + 1, perMinute);
    s.setObject(first + 2, key);
    return first + 3;
  }

  /** The level from the statement's rows (full when there is none). */
  public KeyRateLevel level(ResultSet rows) throws SQLException {
    return rows.next()
        ? new KeyRateLevel(perMinute, Math.min(perMinute, Math.max(0, rows.getDouble(1))))
        : KeyRateLevel.full(perMinute);
  }
}
