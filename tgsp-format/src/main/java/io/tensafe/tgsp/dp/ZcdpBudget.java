package io.tensafe.tgsp.dp;

import java.util.Arrays;

/**
 * The budget arithmetic of an adapter's DP policy, shared by the marketplace (which reserves and
 * settles budgets) and {@code tgsp pack} and {@code bench utility} (which state what a policy
 * allows): releases are Gaussian, each costing zCDP {@code ρ = 1/(2z²)} (one site's output for one
 * token at sensitivity Δ, noised at σ = z·Δ; ADR 0035), and ρ converts to (ε, δ) by the RDP bound
 * of Canonne, Kamath and Steinke (NeurIPS 2020, Proposition 12) at the best order of a fixed grid:
 * {@code ε = αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)}.
 */
public final class ZcdpBudget {
  /** Orders α searched on conversion. */
  private static final double[] ORDERS = grid();

  private ZcdpBudget() {}

  /**
   * ε at {@code delta} of a composed zCDP {@code rho}. Range: [0, ∞).
   *
   * @param rho ≥ 0, finite
   * @param delta in (0, 1)
   */
  public static double epsilon(double rho, double delta) {
    if (!(rho >= 0) || Double.isInfinite(rho)) {
      throw new IllegalArgumentException("rho must be finite and >= 0, was " + rho);
    }
    if (!(delta > 0 && delta < 1)) {
      throw new IllegalArgumentException("delta must be in (0, 1), was " + delta);
    }
    if (rho == 0) {
      return 0; // nothing released
    }
    double best = Double.POSITIVE_INFINITY;
    for (double alpha : ORDERS) {
      double eps =
          alpha * rho + Math.log1p(-1 / alpha) - (Math.log(delta) + Math.log(alpha)) / (alpha - 1);
      best = Math.min(best, eps);
    }
    return Math.max(0, best);
  }

  /**
   * The largest ρ whose ε at δ is at most {@code epsilon}, by {@link #epsilon}'s conversion, found
   * by bisection (ε is increasing in ρ) and shaded down by 1e-12 so floating error never grants
   * more than the policy allows.
   */
  public static double rhoLimit(double epsilon, double delta) {
    double lo = 0;
    double hi = Math.max(epsilon, 1e-9);
    while (epsilon(hi, delta) <= epsilon) {
      lo = hi;
      hi *= 2;
    }
    for (int i = 0; i < 200 && hi - lo > lo * 1e-15; i++) {
      double mid = (lo + hi) / 2;
      if (epsilon(mid, delta) <= epsilon) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo * (1 - 1e-12);
  }

  /** ρ of one release at noise multiplier {@code z}: 1/(2z²), or 0 for a policy without noise. */
  public static double rhoPerRelease(double z) {
    if (!(z >= 0) || Double.isInfinite(z)) {
      throw new IllegalArgumentException("the noise multiplier must be finite and >= 0, was " + z);
    }
    return z == 0 ? 0 : 1 / (2 * z * z);
  }

  /**
   * Tokens an organisation can run through an adapter per period: {@code ⌊ρ_limit / (releases per
   * token × ρ per release)⌋}; empty when the policy adds no noise (no budget limits it).
   *
   * @param z the noise multiplier, ≥ 0
   * @param epsilon the period's ε, > 0
   * @param delta δ, in (0, 1)
   * @param releasesPerToken the adapter's noised sites per token, ≥ 1
   */
  public static java.util.OptionalLong tokensPerPeriod(
      double z, double epsilon, double delta, int releasesPerToken) {
    if (releasesPerToken < 1) {
      throw new IllegalArgumentException("releases per token must be at least 1");
    }
    double perRelease = rhoPerRelease(z);
    if (perRelease == 0) {
      return java.util.OptionalLong.empty();
    }
    return java.util.OptionalLong.of(
        (long) Math.floor(rhoLimit(epsilon, delta) / (releasesPerToken * perRelease)));
  }

  /** The orders α {@link #epsilon} searches (1.01 to 1.99 by 0.01, then 2 to 256 by ×1.1). */
  public static double[] orders() {
    return ORDERS == null ? grid() : ORDERS.clone();
  }

  private static double[] grid() {
    double[] grid = new double[200];
    int n = 0;
    for (double a = 1.01; a < 2; a += 0.01) {
      grid[n++] = a;
    }
    for (double a = 2; a <= 256 && n < grid.length; a *= 1.1) {
      grid[n++] = a;
    }
    return Arrays.copyOf(grid, n);
  }
}
