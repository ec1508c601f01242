package io.tensafe.node.runtime;

/**
 * An adapter's DP policy as the decoder applies it, the same in both modes (ADR 0035): every LoRA
 * input is clipped to L2 norm at most {@code clipNorm}, and every adapted site's output for every
 * token gets independent noise N(0, σ²) per coordinate with σ = z·2·L·C, where L bounds the site's
 * delta's spectral norm (the adapter's signed {@code spectral_log2}). Replacing the adapter by any
 * other within the same bounds moves one site's output by at most 2·L·C, so each noised site and
 * token is one release of ρ = 1/(2z²) zCDP. No noise is ever added to the inputs: the node sees
 * them in hosted mode, and the client owns them in private mode, so input noise protected no one.
 *
 * <p>{@code noiseMultiplier == 0} is the creator's choice of no DP noise: inputs are still clipped
 * to C (private mode's scales need the bound, and both modes compute alike), nothing is added, and
 * no release is counted.
 *
 * @param clipNorm C, the L2 clip norm of every LoRA input. Range: (0, 1e6], finite.
 * @param noiseMultiplier z = σ/(2·L·C). Range: [0, 1e6], finite; 0 means no noise.
 */
public record InputPrivacy(double clipNorm, double noiseMultiplier) {
  public InputPrivacy {
    if (!(clipNorm > 0 && clipNorm <= 1e6) || !(noiseMultiplier >= 0 && noiseMultiplier <= 1e6)) {
      throw new IllegalArgumentException(
          "the clip norm must be in (0, 1e6] and the noise multiplier in [0, 1e6], were "
              + clipNorm
              + " and "
              + noiseMultiplier);
    }
  }

  /** Whether the policy adds noise (z > 0); a policy without noise releases nothing. */
  public boolean noised() {
    return noiseMultiplier > 0;
  }

  /** σ = z·2·L·C, the noise on every output coordinate of a site whose delta is bounded by L. */
  public double outputSigma(double spectralBound) {
    return noiseMultiplier * 2 * spectralBound * clipNorm;
  }

  /** Scales {@code x} in place down to L2 norm C if it is longer. */
  public void clip(double[] x) {
    double norm = 0;
    for (double v : x) {
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    if (norm > clipNorm) {
      double factor = clipNorm / norm;
      for (int i = 0; i < x.length; i++) {
        x[i] *= factor;
      }
    }
  }
}
