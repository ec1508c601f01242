package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;

/**
 * A product ciphertext that its key's owner reads at a few output coefficients, exactly modulo Q:
 * {@code c1} whole (NTT form, two limbs) and {@code c0} only at the outputs (coefficient form). The
 * client decrypts output i as {@code c0[i] + (c1·s)[position i]}; what {@code c0} holds elsewhere
 * is never sent, so it needs no mask. Round one of private mode answers with these (ADR 0017): the
 * values are shares modulo Q, so they cannot be switched to a smaller modulus.
 *
 * <p>Immutable; the arrays are never handed out.
 */
public final class ShareAnswer {
  private final Parameters parameters;
  private final long[][] c1;
  private final long[][] c0;
  private final double scale;

  ShareAnswer(Parameters parameters, long[][] c1, long[][] c0, double scale) {
    if (c1.length != 2 || c0.length != 2 || c0[0].length != c0[1].length) {
      throw new IllegalArgumentException("a share answer has two limbs");
    }
    this.parameters = parameters;
    this.c1 = c1;
    this.c0 = c0;
    this.scale = scale;
  }

  public Parameters parameters() {
    return parameters;
  }

  /** The output coefficients it carries. */
  public int outputs() {
    return c0[0].length;
  }

  /** The scale of the values it encrypts. */
  public double scale() {
    return scale;
  }

  long[] c1(int limb) {
    return c1[limb];
  }

  long c0(int limb, int output) {
    return c0[limb][output];
  }
}
