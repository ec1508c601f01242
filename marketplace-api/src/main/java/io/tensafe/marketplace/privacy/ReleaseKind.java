package io.tensafe.marketplace.privacy;

import java.math.BigDecimal;

/**
 * What one DP release is, and so what it costs at noise multiplier z: a Gaussian release of L2
 * sensitivity Δ with noise σ costs zCDP ρ = Δ²/(2σ²). Each kind fixes Δ in units of σ/z, so ρ =
 * {@code s²/(2z²)} with {@code s} its {@link #sensitivityInNoiseUnits}.
 */
public enum ReleaseKind {
  /**
   * Hosted mode (ADR 0010): one clipped LoRA input, noised at σ = z·C; neighbouring inputs differ
   * by up to 2C, so s = 2 and ρ = 2/z² per release.
   */
  NOISED_INPUT(2),

  /**
   * Private mode (ADR 0017, 0024): one adapted site's output for one token, noised at σ = z·Δ with
   * Δ = 2·L·C the output's sensitivity to replacing the adapter, so s = 1 and ρ = 1/(2z²) per
   * release. A token run costs one such release per noised site.
   */
  NOISED_SITE(1);

  private final int sensitivityInNoiseUnits;

  ReleaseKind(int sensitivityInNoiseUnits) {
    this.sensitivityInNoiseUnits = sensitivityInNoiseUnits;
  }

  /** Δ in units of σ/z: 2 for a noised input, 1 for a noised site. */
  public int sensitivityInNoiseUnits() {
    return sensitivityInNoiseUnits;
  }

  /** {@code s²/(2z²)}, the zCDP cost of one release of this kind at noise multiplier z. */
  BigDecimal rho(BigDecimal noiseMultiplier) {
    BigDecimal s = BigDecimal.valueOf(sensitivityInNoiseUnits);
    return s.multiply(s)
        .divide(
            noiseMultiplier.multiply(noiseMultiplier, BudgetMaths.MATH).multiply(BigDecimal.TWO),
            BudgetMaths.MATH);
  }
}
