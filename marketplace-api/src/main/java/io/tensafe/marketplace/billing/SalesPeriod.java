package io.tensafe.marketplace.billing;

import io.tensafe.marketplace.problem.ProblemTypes;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * A reporting period [from, to) from optional ISO-8601 query values: {@code to} defaults to now,
 * {@code from} to 30 days before {@code to}; at most 366 days long.
 */
public record SalesPeriod(OffsetDateTime from, OffsetDateTime to) {
  static final Duration MAX = Duration.ofDays(366);

  /**
   * @throws io.tensafe.marketplace.problem.ApiProblem validation for an unparsable value, an empty
   *     or reversed period, or one longer than 366 days
   */
  public static SalesPeriod parse(String from, String to) {
    OffsetDateTime end = to == null ? OffsetDateTime.now(ZoneOffset.UTC) : instant("to", to);
    OffsetDateTime start = from == null ? end.minusDays(30) : instant("from", from);
    if (!start.isBefore(end)) {
      throw ProblemTypes.validation("from must be before to");
    }
    if (Duration.between(start, end).compareTo(MAX) > 0) {
      throw ProblemTypes.validation("a reporting period is at most 366 days");
    }
    return new SalesPeriod(start, end);
  }

  private static OffsetDateTime instant(String name, String value) {
    try {
      return OffsetDateTime.parse(value);
    } catch (DateTimeParseException e) {
      throw ProblemTypes.validation(
          name + " must be an ISO-8601 date-time with offset, e.g. 2026-11-01T00:00:00Z");
    }
  }
}
