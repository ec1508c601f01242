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
 * <p>The unit is the <em>release</em>: in hosted mode one clipped, Gaussian-noised LoRA input with
 * the serving version's noise multiplier z, costing zCDP {@code ρ = 2/z²} at sensitivity 2C (ADR
 * 0010); in private mode one site's noised output for one token, {@code ρ = 1/(2z²)} ({@link
 * ReleaseKind}, ADR 0024); costs add. ρ values carry 24 decimal places: costs round up and limits
 * round down, so rounding never grants more than a policy allows. Reported ε is the RDP conversion
 * ({@link RdpAccountant}). Periods are aligned to the Unix epoch: period k of a d-day policy is
 * [k·d, (k+1)·d) days.
 */
final class BudgetMaths {
  static final MathContext MATH = MathContext.DECIMAL128;

  /** Decimal places of every stored ρ. */
  static final int RHO_SCALE = 24;

  private BudgetMaths() {}

  /**
   * zCDP cost of one hosted release ({@link ReleaseKind#NOISED_INPUT}) at noise multiplier z: σ =
   * zC and sensitivity Δ = 2C give Δ²/(2σ²) = 2/z².
   */
  static BigDecimal rhoPerRelease(BigDecimal noiseMultiplier) {
    return ReleaseKind.NOISED_INPUT.rho(noiseMultiplier);
  }

  /** The ρ of {@code releases} hosted releases at {@code noiseMultiplier}, rounded up. */
  static BigDecimal cost(BigDecimal noiseMultiplier, long releases) {
    return cost(noiseMultiplier, releases, ReleaseKind.NOISED_INPUT);
  }

  /** The ρ of {@code releases} releases of {@code kind} at {@code noiseMultiplier}, rounded up. */
  static BigDecimal cost(BigDecimal noiseMultiplier, long releases, ReleaseKind kind) {
    return kind.rho(noiseMultiplier)
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
    double lo = 0;
    double hi = Math.max(epsilon, 1e-9);
    while (new RdpAccountant(hi).epsilon(delta) <= epsilon) {
      lo = hi;
      hi *= 2;
    }
    for (int i = 0; i < 200 && hi - lo > lo * 1e-15; i++) {
      double mid = (lo + hi) / 2;
      if (new RdpAccountant(mid).epsilon(delta) <= epsilon) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return new BigDecimal(lo * (1 - 1e-12), MATH).setScale(RHO_SCALE, RoundingMode.FLOOR);
  }

  /** ε at {@code delta} of a spent or available {@code rho}. */
  static double epsilon(BigDecimal rho, double delta) {
    return new RdpAccountant(rho.doubleValue()).epsilon(delta);
  }

  /** {@code releases} of a reservation of {@code reserved} releases costing {@code rho}. */
  static BigDecimal share(BigDecimal rho, long releases, long reserved) {
    return rho.multiply(BigDecimal.valueOf(releases))
        .divide(BigDecimal.valueOf(reserved), RHO_SCALE, RoundingMode.CEILING)
        .min(rho);
  }

  /** The start of the epoch-aligned period of {@code days} days that contains {@code now}. */
  static OffsetDateTime periodStart(int days, Instant now) {
    long periodMillis = Duration.ofDays(days).toMillis();
    long index = Math.floorDiv(now.toEpochMilli(), periodMillis);
    return Instant.ofEpochMilli(index * periodMillis).atOffset(ZoneOffset.UTC);
  }
}
