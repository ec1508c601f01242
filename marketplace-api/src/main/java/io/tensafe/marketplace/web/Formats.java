package io.tensafe.marketplace.web;

import io.quarkus.qute.TemplateExtension;
import io.tensafe.marketplace.privacy.BudgetView;
import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * How the pages write numbers, money and times. Money is exact: integer micro-units are shown with
 * every non-zero digit (at least two decimals), never rounded, so a page's figures add up to the
 * ledger's. Times are UTC.
 */
@TemplateExtension
public final class Formats {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT);

  private Formats() {}

  /** {@code 1234500} → {@code "1.2345"}; {@code 1000000} → {@code "1.00"}. */
  public static String money(long micros) {
    BigDecimal value = BigDecimal.valueOf(micros, 6).stripTrailingZeros();
    if (value.scale() < 2) {
      value = value.setScale(2);
    }
    return value.toPlainString();
  }

  /** An amount with its currency code, e.g. {@code "USD 1.50"}. */
  public static String money(long micros, String currency) {
    return currency + " " + money(micros);
  }

  /** A count with thousands separators. */
  public static String count(long value) {
    return String.format(Locale.ROOT, "%,d", value);
  }

  /** A count, or an axis tick between counts (one decimal when not whole). */
  public static String quantity(double value) {
    return value == Math.rint(value) ? count((long) value) : fixed(value, 1);
  }

  /** A rate or measurement with {@code digits} decimals. */
  public static String fixed(double value, int digits) {
    return String.format(Locale.ROOT, "%,." + digits + "f", value);
  }

  /** A fraction in [0, 1] as a percentage with one decimal. */
  public static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
  }

  /** Whether a time is set and still to come. */
  public static boolean ahead(OffsetDateTime time) {
    return time != null && time.isAfter(OffsetDateTime.now());
  }

  /** A time in UTC to the second, or "never" for none. */
  public static String utc(OffsetDateTime time) {
    return time == null ? "never" : TIME.format(time.withOffsetSameInstant(ZoneOffset.UTC));
  }

  /** What is left of a DP budget this period: its limit (top-ups included) less what was spent. */
  public static double epsilonLeft(BudgetView budget) {
    return Math.max(0, budget.epsilonLimit() - budget.epsilonSpent());
  }

  /** A value for a URL's query string. */
  public static String url(String value) {
    return java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8);
  }
}
