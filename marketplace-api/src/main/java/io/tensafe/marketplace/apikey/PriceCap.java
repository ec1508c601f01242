package io.tensafe.marketplace.apikey;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * The most an API key pays per 1,000 tokens: adapters priced above either figure, or in another
 * currency, are never routed to and are refused when named.
 *
 * @param currency ISO 4217, e.g. USD
 * @param promptMicrosPer1kTokens the highest prompt price accepted, in micro-units, 1..2^53 − 1
 * @param completionMicrosPer1kTokens the highest completion price accepted, 1..2^53 − 1
 */
public record PriceCap(
    @NotNull @Pattern(regexp = "[A-Z]{3}") String currency,
    @Min(1) @Max(9_007_199_254_740_991L) long promptMicrosPer1kTokens,
    @Min(1) @Max(9_007_199_254_740_991L) long completionMicrosPer1kTokens) {

  /** Whether a price in {@code currency} of these figures is within the cap. */
  public boolean allows(String currency, long promptMicros, long completionMicros) {
    return this.currency.equals(currency)
        && promptMicros <= promptMicrosPer1kTokens
        && completionMicros <= completionMicrosPer1kTokens;
  }

  @Override
  public String toString() {
    return currency
        + " "
        + promptMicrosPer1kTokens
        + " / "
        + completionMicrosPer1kTokens
        + " micro-units per 1k prompt / completion tokens";
  }
}
