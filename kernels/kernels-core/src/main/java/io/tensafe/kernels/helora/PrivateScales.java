package io.tensafe.kernels.helora;

/**
 * The fixed scales of one private session ({@link SharedLoraNode}, ADR 0025): each a function of
 * the adapter's public policy and its signed bounds only, never of the client's input or of the
 * weights themselves, so no scale carried by a ciphertext tells anything about either.
 *
 * <ul>
 *   <li>input: {@code Δx = 2^44 / C}, with the client clipping every input to {@code ‖x‖₂ ≤ C} (so
 *       {@code ‖x‖∞ ≤ C} and {@code Δx·‖x‖∞ ≤ 2^44});
 *   <li>weights: {@code Δw = 2^30 / W}, with W the signed bound on every row's L1 norm of A and of
 *       the scaled B (so {@code Δw·‖row‖₁ ≤ 2^30});
 *   <li>shares (round one's products): {@code Δx·Δw}; deltas (round two's): {@code Δx·Δw²}, whose
 *       products stay below {@code 2^(44+30+30) = 2^104 ≤ Q/4} for two 54-bit primes.
 * </ul>
 *
 * @param clipNorm C, the policy's L2 clip norm. Range: (0, 1e6], finite.
 * @param weightBound W, a power of two from the signed manifest. Range: (0, 2^64], finite.
 */
public record PrivateScales(double clipNorm, double weightBound) {
  /** {@code Δx·C = 2^44}. */
  static final int INPUT_SCALE_BITS = 44;

  /** {@code Δw·W = 2^30}. */
  static final int WEIGHT_SCALE_BITS = 30;

  public PrivateScales {
    if (!(clipNorm > 0 && clipNorm <= 1e6)) {
      throw new IllegalArgumentException("the clip norm must be in (0, 1e6], was " + clipNorm);
    }
    if (!(weightBound > 0 && weightBound <= 0x1p64)) {
      throw new IllegalArgumentException(
          "the weight bound must be in (0, 2^64], was " + weightBound);
    }
  }

  /** {@code Δx = 2^44 / C}. */
  public double input() {
    return Math.scalb(1.0, INPUT_SCALE_BITS) / clipNorm;
  }

  /** {@code Δw = 2^30 / W}. */
  public double weight() {
    return Math.scalb(1.0, WEIGHT_SCALE_BITS) / weightBound;
  }

  /** Round one's products and round two's shares: {@code Δx·Δw}. */
  public double share() {
    return input() * weight();
  }

  /** Round two's products: {@code Δx·Δw²}. */
  public double delta() {
    return share() * weight();
  }
}
