package io.tensafe.marketplace.privacy;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One {@code dp_budget} row as {@link BudgetTable#BUDGET_ROW} selects it. ρ values are zCDP,
 * non-negative; {@code rhoSpent ≤ rhoLimit + rhoTopUp} (the database's check).
 */
record BudgetRow(
    UUID id,
    BigDecimal rhoLimit,
    BigDecimal rhoTopUp,
    BigDecimal rhoSpent,
    BigDecimal delta,
    OffsetDateTime periodEnd) {

  /** The ρ this period may spend: the policy's limit plus top-ups. */
  BigDecimal capacity() {
    return rhoLimit.add(rhoTopUp);
  }

  /** ε of {@code rho} at this budget's δ. */
  double epsilon(BigDecimal rho) {
    return BudgetMaths.epsilon(rho, delta.doubleValue());
  }
}
