package io.tensafe.marketplace.web;

import io.tensafe.marketplace.problem.ProblemTypes;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * A period of whole UTC days chosen on a page, both ends included: [{@code first} 00:00, {@code
 * last} + 1 day 00:00) as instants. At most 366 days, as the reports allow.
 */
public record DayRange(LocalDate first, LocalDate last) {

  /** Blank values default to the first day of this month and today. */
  static DayRange parse(String first, String last) {
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    LocalDate end = blank(last) ? today : date("to", last);
    LocalDate start = blank(first) ? end.withDayOfMonth(1) : date("from", first);
    if (start.isAfter(end)) {
      throw ProblemTypes.validation("the first day must not be after the last day");
    }
    if (ChronoUnit.DAYS.between(start, end) >= 366) {
      throw ProblemTypes.validation("a period is at most 366 days");
    }
    return new DayRange(start, end);
  }

  /** The last {@code days} UTC days, today included. */
  static DayRange lastDays(int days) {
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    return new DayRange(today.minusDays(days - 1L), today);
  }

  /** How many days the period holds (1..366). */
  public long days() {
    return ChronoUnit.DAYS.between(first, last) + 1;
  }

  public OffsetDateTime from() {
    return first.atStartOfDay().atOffset(ZoneOffset.UTC);
  }

  /** Exclusive end: the start of the day after {@code last}. */
  public OffsetDateTime to() {
    return last.plusDays(1).atStartOfDay().atOffset(ZoneOffset.UTC);
  }

  /** The query string the report endpoints take: {@code from=...&to=...} (ISO instants). */
  public String query() {
    return "from=" + from() + "&to=" + to();
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  private static LocalDate date(String name, String value) {
    try {
      return LocalDate.parse(value.strip());
    } catch (DateTimeParseException e) {
      throw ProblemTypes.validation(name + " must be a date like 2026-11-01");
    }
  }
}
