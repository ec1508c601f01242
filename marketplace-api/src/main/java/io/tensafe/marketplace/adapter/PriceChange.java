package io.tensafe.marketplace.adapter;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Positive;
import java.time.OffsetDateTime;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A scheduled price: integer micro-units of the version's currency per 1000 tokens, in effect from
 * {@code effectiveFrom}: now or later, never in the past. Omitted (null) or up to {@link
 * #NOW_TOLERANCE} in the past means "now" (a form that sends the time it was opened, a clock a
 * little behind); a rise still needs its notice period. {@code privateMicrosPer1kTokens} prices
 * private-mode sessions per 1000 tokens processed, prompt and completion alike (ADR 0024); without
 * it they pay the larger of the two hosted prices.
 *
 * @param retiredPrivatePrompt {@code privatePromptMicrosPer1kTokens}, replaced by {@code
 *     privateMicrosPer1kTokens}: read only to be refused by name (never written back)
 * @param retiredPrivateCompletion {@code privateCompletionMicrosPer1kTokens}, likewise
 */
public record PriceChange(
    @Positive @Max(9007199254740991L) long promptMicrosPer1kTokens,
    @Positive @Max(9007199254740991L) long completionMicrosPer1kTokens,
    OffsetDateTime effectiveFrom,
    @Positive @Max(9007199254740991L) Long privateMicrosPer1kTokens,
    @JsonProperty(value = "privatePromptMicrosPer1kTokens", access = JsonProperty.Access.WRITE_ONLY)
        @Schema(hidden = true)
        JsonNode retiredPrivatePrompt,
    @JsonProperty(
            value = "privateCompletionMicrosPer1kTokens",
            access = JsonProperty.Access.WRITE_ONLY)
        @Schema(hidden = true)
        JsonNode retiredPrivateCompletion) {
  /** How far in the past an {@code effectiveFrom} may be and still mean "now". */
  public static final java.time.Duration NOW_TOLERANCE = java.time.Duration.ofMinutes(5);

  /** A change without the retired fields. */
  public PriceChange(
      long promptMicrosPer1kTokens,
      long completionMicrosPer1kTokens,
      OffsetDateTime effectiveFrom,
      Long privateMicrosPer1kTokens) {
    this(
        promptMicrosPer1kTokens,
        completionMicrosPer1kTokens,
        effectiveFrom,
        privateMicrosPer1kTokens,
        null,
        null);
  }

  /** This change with {@code effectiveFrom} set to {@code now}. */
  PriceChange from(OffsetDateTime now) {
    return new PriceChange(
        promptMicrosPer1kTokens, completionMicrosPer1kTokens, now, privateMicrosPer1kTokens);
  }

  /**
   * What private sessions pay per 1000 tokens under this price: its private price, else the larger
   * hosted one (so a client cannot pay less by sending generated tokens as prompt).
   */
  public static long privateOrHosted(Long privatePrice, long prompt, long completion) {
    return privatePrice != null ? privatePrice : Math.max(prompt, completion);
  }
}
