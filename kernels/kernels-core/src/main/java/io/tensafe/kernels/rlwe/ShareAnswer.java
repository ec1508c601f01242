package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;

/**
 * A product ciphertext that its key's owner reads at a few output coefficients, exactly modulo Q
 * but for a small error: {@code c1} whole, in coefficient form and rounded to a multiple of {@code
 * 2^}{@link #DROPPED_BITS} (its value modulo Q, {@code round(c1/2^32)}, about 77 bits), and {@code
 * c0} only at the outputs, exact. The client decrypts output i as {@code c0[i] + (c1'·s)[position
 * i]}, off by {@code (δ·s)[position i]} with {@code |δ| ≤ 2^31}: at most {@code 2^31·‖s‖₁}, about
 * {@code 2^36} for a ternary s at N = 4096. What {@code c0} holds elsewhere is never sent, so it
 * needs no mask. Round one of private mode answers with these (ADR 0018): the values are shares
 * modulo Q, so they cannot be switched to a smaller modulus.
 *
 * <p>Immutable; the arrays are never handed out.
 */
public final class ShareAnswer {
  /** Low bits of c1 that are not sent. */
  public static final int DROPPED_BITS = 32;

  private final Parameters parameters;
  private final long[] c1High;
  private final long[] c1Low;
  private final long[][] c0;
  private final double scale;

  ShareAnswer(Parameters parameters, long[] c1High, long[] c1Low, long[][] c0, double scale) {
    if (c0.length != 2 || c0[0].length != c0[1].length || c1High.length != c1Low.length) {
      throw new IllegalArgumentException("a share answer has two limbs and one c1");
    }
    this.parameters = parameters;
    this.c1High = c1High;
    this.c1Low = c1Low;
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

  /** Bits of each sent c1 value: {@code bitLength(Q) − 32 + 1}, room for the rounding up. */
  static int c1Bits(Parameters p) {
    return p.moduli().get(0).bitLength() + p.moduli().get(1).bitLength() - DROPPED_BITS + 1;
  }

  long c1High(int k) {
    return c1High[k];
  }

  long c1Low(int k) {
    return c1Low[k];
  }

  /** {@code c1'} in coefficient form modulo prime {@code limb}: the sent value times 2^32. */
  long[] c1Residues(int limb) {
    Modulus q = parameters.moduli().get(limb);
    long shift = q.pow(2, DROPPED_BITS);
    long[] out = new long[c1Low.length];
    for (int k = 0; k < out.length; k++) {
      out[k] = q.mul(q.reduce128(c1High[k], c1Low[k]), shift);
    }
    return out;
  }

  long c0(int limb, int output) {
    return c0[limb][output];
  }
}
