package io.tensafe.marketplace.privacy;

/**
 * Rényi-DP accounting of Gaussian releases (Mironov, CSF 2017), converted to (ε, δ).
 *
 * <p>One release with noise multiplier {@code z = σ/Δ} is (α, α/(2z²))-RDP for every order α > 1
 * (Mironov, Proposition 7); compositions add per order. Conversion to (ε, δ) takes the best order
 * of a fixed grid with the bound of Canonne, Kamath and Steinke (NeurIPS 2020, Proposition 12):
 * {@code ε = ε_α + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)}, never looser than Mironov's {@code ε_α +
 * ln(1/δ)/(α − 1)}. Equivalently the releases are ρ-zCDP with {@code ρ = Σ 1/(2z²)} (Bun and
 * Steinke, TCC 2016). Immutable: {@link #compose} returns a new accountant.
 *
 * @param rho the composed zCDP parameter Σ 1/(2z²), ≥ 0; the RDP at order α is α·ρ
 */
public record RdpAccountant(double rho) {
  /** Orders α searched on conversion. */
  static final double[] ORDERS = io.tensafe.tgsp.dp.ZcdpBudget.orders();

  public RdpAccountant {
    if (!(rho >= 0) || Double.isInfinite(rho)) {
      throw new IllegalArgumentException("rho must be finite and >= 0, was " + rho);
    }
  }

  /** Nothing released yet. */
  public static RdpAccountant empty() {
    return new RdpAccountant(0);
  }

  /** This accountant plus {@code count} Gaussian releases of noise multiplier {@code z = σ/Δ}. */
  public RdpAccountant compose(double noiseMultiplier, long count) {
    GaussianMechanism.requirePositive(noiseMultiplier, "noise multiplier");
    if (count < 0) {
      throw new IllegalArgumentException("count must be >= 0, was " + count);
    }
    return new RdpAccountant(rho + count / (2 * noiseMultiplier * noiseMultiplier));
  }

  /**
   * ε at {@code delta} by the best order's Canonne-Kamath-Steinke conversion, tgsp-format's {@code
   * ZcdpBudget} (the one the pack tool states figures with).
   */
  public double epsilon(double delta) {
    requireDelta(delta);
    return io.tensafe.tgsp.dp.ZcdpBudget.epsilon(rho, delta);
  }

  /** ε at {@code delta} by Mironov's conversion (Proposition 3), for comparison. */
  public double epsilonMironov(double delta) {
    requireDelta(delta);
    double best = Double.POSITIVE_INFINITY;
    for (double alpha : ORDERS) {
      best = Math.min(best, alpha * rho + Math.log(1 / delta) / (alpha - 1));
    }
    return best;
  }

  /**
   * ε at {@code delta} from zCDP (Bun and Steinke, Proposition 1.3): {@code ρ + 2·sqrt(ρ ln(1/δ))}.
   */
  public double epsilonZcdp(double delta) {
    requireDelta(delta);
    return rho + 2 * Math.sqrt(rho * Math.log(1 / delta));
  }

  private static void requireDelta(double delta) {
    if (!(delta > 0 && delta < 1)) {
      throw new IllegalArgumentException("delta must be in (0, 1), was " + delta);
    }
  }
}
