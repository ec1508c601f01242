package io.tensafe.marketplace.sql;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Conversions of values that native queries return, whichever JDBC type the driver chose. */
public final class SqlValues {
  private SqlValues() {}

  /**
   * A {@code timestamptz} column as an {@link OffsetDateTime} (UTC unless it carries an offset).
   */
  public static OffsetDateTime toOffset(Object value) {
    return switch (value) {
      case OffsetDateTime o -> o;
      case Instant i -> i.atOffset(ZoneOffset.UTC);
      case java.sql.Timestamp t -> t.toInstant().atOffset(ZoneOffset.UTC);
      default -> throw new IllegalStateException("unexpected timestamp type " + value.getClass());
    };
  }

  /** A {@code date} column as a {@link java.time.LocalDate}. */
  public static java.time.LocalDate toLocalDate(Object value) {
    return switch (value) {
      case java.time.LocalDate d -> d;
      case java.sql.Date d -> d.toLocalDate();
      default -> throw new IllegalStateException("unexpected date type " + value.getClass());
    };
  }
}
