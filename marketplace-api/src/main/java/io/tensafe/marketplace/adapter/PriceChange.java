package io.tensafe.marketplace.adapter;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.time.OffsetDateTime;

/**
 * A scheduled price: integer micro-units of the version's currency per 1000 tokens, in effect from
 * {@code effectiveFrom} (now or later; never in the past).
 */
public record PriceChange(
    @Positive @Max(9007199254740991L) long promptMicrosPer1kTokens,
    @Positive @Max(9007199254740991L) long completionMicrosPer1kTokens,
    @NotNull OffsetDateTime effectiveFrom) {}
