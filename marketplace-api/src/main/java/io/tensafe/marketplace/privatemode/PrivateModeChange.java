package io.tensafe.marketplace.privatemode;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * A creator's private-mode setting for one version (issue 49), as sent: whether it is offered, and
 * each client organisation's quota of private tokens (prompt + completion) per period. The quota is
 * required when {@code offered}; withdrawn, a quota left out keeps the one set before.
 *
 * @param tokensPerPeriod in [1, 2^53 - 1]
 * @param periodDays in [1, 366]
 */
public record PrivateModeChange(
    @NotNull Boolean offered,
    @Min(1) @Max(9007199254740991L) Long tokensPerPeriod,
    @Min(1) @Max(366) Integer periodDays) {}
