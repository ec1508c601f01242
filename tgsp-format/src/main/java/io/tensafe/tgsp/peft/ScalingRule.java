package io.tensafe.tgsp.peft;

/** How a LoRA site's delta {@code B·A} is scaled, as PEFT defines it. */
public enum ScalingRule {
  /** {@code alpha / r}: PEFT's default. */
  ALPHA_OVER_RANK,
  /** {@code alpha / sqrt(r)}: rank-stabilised LoRA ({@code use_rslora = true}). */
  ALPHA_OVER_SQRT_RANK;

  /** The factor for rank {@code r} (r ≥ 1) and {@code alpha}. */
  public double factor(double alpha, int rank) {
    return this == ALPHA_OVER_RANK ? alpha / rank : alpha / Math.sqrt(rank);
  }

  /** The manifest's spelling: "alpha_over_rank" or "alpha_over_sqrt_rank". */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
