package io.tensafe.node.runtime;

import java.util.Random;

/**
 * The Gaussian mechanism on each LoRA input before it is encrypted: {@code x} is clipped to L2 norm
 * at most {@code clipNorm}, then every coordinate gets independent noise N(0, (σ/C·C)²). One noised
 * input is one <em>release</em>; sites that read the same input (q, k and v of a layer) share one
 * release, since reusing a released vector is post-processing.
 *
 * @param clipNorm C, the L2 clip norm. Range: (0, 1e6], finite.
 * @param noiseMultiplier σ/C. Range: (0, 1e6], finite.
 */
public record InputPrivacy(double clipNorm, double noiseMultiplier) {
  public InputPrivacy {
    if (!(clipNorm > 0 && clipNorm <= 1e6) || !(noiseMultiplier > 0 && noiseMultiplier <= 1e6)) {
      throw new IllegalArgumentException(
          "clip norm and noise multiplier must be in (0, 1e6], were "
              + clipNorm
              + " and "
              + noiseMultiplier);
    }
  }

  /** The standard deviation of the noise on each coordinate, σ = multiplier × C. */
  public double sigma() {
    return noiseMultiplier * clipNorm;
  }

  /** Clips {@code x} in place to norm C and adds noise drawn from {@code random} (a CSPRNG). */
  public void release(double[] x, Random random) {
    double norm = 0;
    for (double v : x) {
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    double factor = norm > clipNorm ? clipNorm / norm : 1;
    double sigma = sigma();
    for (int i = 0; i < x.length; i++) {
      x[i] = x[i] * factor + sigma * random.nextGaussian();
    }
  }
}
