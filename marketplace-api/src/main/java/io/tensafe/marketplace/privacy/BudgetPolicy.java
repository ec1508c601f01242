package io.tensafe.marketplace.privacy;

import java.math.BigDecimal;
import java.util.UUID;

/**
 * The DP policy of one adapter version, as its signed manifest declares it: noise multiplier z > 0,
 * δ in (0, 1), ε per period > 0, period length in days ≥ 1.
 */
record BudgetPolicy(
    UUID adapterId, BigDecimal noiseMultiplier, BigDecimal delta, BigDecimal epsilon, int days) {}
