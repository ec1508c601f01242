package io.tensafe.marketplace.privacy;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The accounting arithmetic of privacy budgets, apart from their SQL ({@link PrivacyBudgets}).
 *
 * <p>The unit is the <em>release</em>, the same in both modes (ADR 0035): one adapted site's output
 * for one token, noised at σ = z·Δ where Δ = 2·L·C is its sensitivity to replacing the adapter,
 * costing zCDP {@code ρ = 1/(2z²)}; costs add. A policy without noise (z = 0) costs nothing. ρ
 * values carry 24 decimal places: costs round up and limits round down, so rounding never grants
 * more than a policy allows; a reservation's settled share rounds up too, in SQL ({@code
 * reservation_share}, {@code R__budget_rules.sql}). Reported ε is the RDP conversion ({@link
 * RdpAccountant}). Periods are aligned to the Unix epoch: period k of a d-day policy is [k·d,
 * (k+1)·d) days.
 */
final class BudgetMaths {
  static final MathContext MATH = MathContext.DECIMAL128;

  /** Decimal places of every stored ρ. */
  static final int RHO_SCALE = 24;

  private BudgetMaths() {}

  /**
   * zCDP cost of one release at noise multiplier z: sensitivity Δ = 2LC noised at σ = zΔ gives
   * Δ²/(2σ²) = 1/(2z²); 0 for a policy without noise (z = 0), which releases nothing noised.
   */
  static BigDecimal rhoPerRelease(BigDecimal noiseMultiplier) {
    if (noiseMultiplier.signum() == 0) {
      return BigDecimal.ZERO;
    }
    return BigDecimal.ONE.divide(
        noiseMultiplier.multiply(noiseMultiplier, MATH).multiply(BigDecimal.TWO), MATH);
  }

  /** The ρ of {@code releases} releases at {@code noiseMultiplier}, rounded up. */
  static BigDecimal cost(BigDecimal noiseMultiplier, long releases) {
    return rhoPerRelease(noiseMultiplier)
        .multiply(BigDecimal.valueOf(releases), MATH)
        .setScale(RHO_SCALE, RoundingMode.CEILING);
  }

  /**
   * The largest ρ whose ε at δ is at most {@code epsilon}, by the same conversion every page and
   * answer shows ε with ({@link #epsilon}, the RDP one): so a budget of the policy's ε shows that
   * ε, not a smaller figure from a looser conversion. Found by bisection (ε is increasing in ρ),
   * then rounded down so floating error never grants more than the policy allows.
   */
  static BigDecimal rhoLimit(double epsilon, double delta) {
    return new BigDecimal(io.tensafe.tgsp.dp.ZcdpBudget.rhoLimit(epsilon, delta), MATH)
        .setScale(RHO_SCALE, RoundingMode.FLOOR);
  }

  /** ε at {@code delta} of a spent or available {@code rho}. */
  static double epsilon(BigDecimal rho, double delta) {
    return new RdpAccountant(rho.doubleValue()).epsilon(delta);
  }

  /** The start of the epoch-aligned period of {@code days} days that contains {@code now}. */
  static OffsetDateTime periodStart(int days, Instant now) {
    long periodMillis = Duration.ofDays(days).toMillis();
    long index = Math.floorDiv(now.toEpochMilli(), periodMillis);
    return Instant.ofEpochMilli(index * periodMillis).atOffset(ZoneOffset.UTC);
  }
}
