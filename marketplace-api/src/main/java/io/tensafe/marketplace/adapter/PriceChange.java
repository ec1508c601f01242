package io.tensafe.marketplace.adapter;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Positive;
import java.time.OffsetDateTime;

/**
 * A scheduled price: integer micro-units of the version's currency per 1000 tokens, in effect from
 * {@code effectiveFrom}: now or later, never in the past. Omitted (null) or up to {@link
 * #NOW_TOLERANCE} in the past means "now" (a form that sends the time it was opened, a clock a
 * little behind); a rise still needs its notice period.
 */
public record PriceChange(
    @Positive @Max(9007199254740991L) long promptMicrosPer1kTokens,
    @Positive @Max(9007199254740991L) long completionMicrosPer1kTokens,
    OffsetDateTime effectiveFrom) {
  /** How far in the past an {@code effectiveFrom} may be and still mean "now". */
  public static final java.time.Duration NOW_TOLERANCE = java.time.Duration.ofMinutes(5);

  /** This change with {@code effectiveFrom} set to {@code now}. */
  PriceChange from(OffsetDateTime now) {
    return new PriceChange(promptMicrosPer1kTokens, completionMicrosPer1kTokens, now);
  }
}
