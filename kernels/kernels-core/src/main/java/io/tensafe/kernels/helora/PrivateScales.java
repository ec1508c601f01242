package io.tensafe.kernels.helora;

/**
 * The fixed scales of one private session ({@link SharedLoraNode}, ADR 0025): each a function of
 * the adapter's public policy and its signed bounds only, never of the client's input or of the
 * weights themselves, so no scale carried by a ciphertext tells anything about either.
 *
 * <ul>
 *   <li>input: {@code Δx = 2^44 / C}, with the client clipping every input to {@code ‖x‖₂ ≤ C};
 *   <li>A: {@code Δa = 2^30 / W_A}, W_A the signed bound on every row's L2 norm of A, so that
 *       {@code |Δx·Δa·A_i·x| ≤ Δx·‖x‖₂·Δa·‖A_i‖₂ ≤ 2^74} (Cauchy–Schwarz: the input's L2 clip meets
 *       A's rows' L2 norms, many bits finer than an L1 row bound against {@code ‖x‖∞});
 *   <li>B: {@code Δb = 2^30 / W_B}, W_B the signed bound on every row's L1 norm of the scaled B
 *       (its inputs, the shares, are bounded entry by entry);
 *   <li>shares (round one's products): {@code Δx·Δa}; deltas (round two's): {@code Δx·Δa·Δb}, whose
 *       products stay below {@code 2^(44+30+30) = 2^104 ≤ Q/4} for two 54-bit primes.
 * </ul>
 *
 * @param clipNorm C, the policy's L2 clip norm. Range: (0, 1e6], finite.
 * @param aBound W_A, a power of two from the signed manifest. Range: (0, 2^64].
 * @param bBound W_B, a power of two from the signed manifest. Range: (0, 2^64].
 */
public record PrivateScales(double clipNorm, double aBound, double bBound) {
  /** {@code Δx·C = 2^44}. */
  static final int INPUT_SCALE_BITS = 44;

  /** {@code Δa·W_A = Δb·W_B = 2^30}. */
  static final int WEIGHT_SCALE_BITS = 30;

  public PrivateScales {
    if (!(clipNorm > 0 && clipNorm <= 1e6)) {
      throw new IllegalArgumentException("the clip norm must be in (0, 1e6], was " + clipNorm);
    }
    if (!(aBound > 0 && aBound <= 0x1p64) || !(bBound > 0 && bBound <= 0x1p64)) {
      throw new IllegalArgumentException(
          "the weight bounds must be in (0, 2^64], were " + aBound + " and " + bBound);
    }
  }

  /** {@code Δx = 2^44 / C}. */
  public double input() {
    return Math.scalb(1.0, INPUT_SCALE_BITS) / clipNorm;
  }

  /** {@code Δa = 2^30 / W_A}. */
  public double a() {
    return Math.scalb(1.0, WEIGHT_SCALE_BITS) / aBound;
  }

  /** {@code Δb = 2^30 / W_B}. */
  public double b() {
    return Math.scalb(1.0, WEIGHT_SCALE_BITS) / bBound;
  }

  /** Round one's products and round two's shares: {@code Δx·Δa}. */
  public double share() {
    return input() * a();
  }

  /** Round two's products: {@code Δx·Δa·Δb}. */
  public double delta() {
    return share() * b();
  }
}
