package io.tensafe.marketplace.adapter;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Positive;
import java.time.OffsetDateTime;

/**
 * A scheduled price: integer micro-units of the version's currency per 1000 tokens, in effect from
 * {@code effectiveFrom}: now or later, never in the past. Omitted (null) or up to {@link
 * #NOW_TOLERANCE} in the past means "now" (a form that sends the time it was opened, a clock a
 * little behind); a rise still needs its notice period. {@code privatePromptMicrosPer1kTokens} and
 * {@code privateCompletionMicrosPer1kTokens}, both or neither, price private-mode sessions (ADR
 * 0017); without them private sessions pay the hosted price.
 */
public record PriceChange(
    @Positive @Max(9007199254740991L) long promptMicrosPer1kTokens,
    @Positive @Max(9007199254740991L) long completionMicrosPer1kTokens,
    OffsetDateTime effectiveFrom,
    @Positive @Max(9007199254740991L) Long privatePromptMicrosPer1kTokens,
    @Positive @Max(9007199254740991L) Long privateCompletionMicrosPer1kTokens) {
  /** How far in the past an {@code effectiveFrom} may be and still mean "now". */
  public static final java.time.Duration NOW_TOLERANCE = java.time.Duration.ofMinutes(5);

  /** This change with {@code effectiveFrom} set to {@code now}. */
  PriceChange from(OffsetDateTime now) {
    return new PriceChange(
        promptMicrosPer1kTokens,
        completionMicrosPer1kTokens,
        now,
        privatePromptMicrosPer1kTokens,
        privateCompletionMicrosPer1kTokens);
  }
}
