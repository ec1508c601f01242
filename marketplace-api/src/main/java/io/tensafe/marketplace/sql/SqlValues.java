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

  /**
   * An integer column or aggregate as a {@code long}, exactly: {@code sum(bigint)} is a {@code
   * numeric} that may pass 2^63 − 1, and is never wrapped or truncated.
   *
   * @throws ArithmeticException naming the value when it does not fit a {@code long} or has a
   *     fraction
   */
  public static long toLongExact(Object value) {
    return switch (value) {
      case Long l -> l;
      case Integer i -> i;
      case Short s -> s;
      case java.math.BigInteger b -> exact(new java.math.BigDecimal(b));
      case java.math.BigDecimal d -> exact(d);
      default -> throw new IllegalStateException("unexpected integer type " + value.getClass());
    };
  }

  private static long exact(java.math.BigDecimal d) {
    try {
      return d.longValueExact();
    } catch (ArithmeticException e) {
      throw new ArithmeticException(
          "the total " + d.toPlainString() + " does not fit a 64-bit count of micro-units");
    }
  }
}
