package io.tensafe.kernels.protocol;

import io.tensafe.kernels.params.Parameters;

/**
 * A product ciphertext that its key's owner reads exactly modulo Q at a few output coefficients:
 * {@code c1} whole, in coefficient form, as its residues modulo both primes, and {@code c0} only at
 * the outputs. The client decrypts output i as {@code c0[i] + (c1·s)[position i]} with no error of
 * its own: round one of private mode answers with these, and its shares must be exact for round
 * two's check (ADR 0025; ADR 0018 had dropped 32 low bits of c1, whose residue {@code δ·s} reached
 * the deltas unflooded). What {@code c0} holds elsewhere is never sent, so it needs no mask.
 *
 * <p>Immutable; the arrays are never handed out.
 */
public final class ShareAnswer {
  private final Parameters parameters;
  private final long[][] c1;
  private final long[][] c0;
  private final double scale;

  ShareAnswer(Parameters parameters, long[][] c1, long[][] c0, double scale) {
    if (c0.length != 2 || c0[0].length != c0[1].length || c1.length != 2) {
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

  /** {@code c1} in coefficient form modulo prime {@code limb}, each in [0, q): a copy. */
  long[] c1Residues(int limb) {
    return c1[limb].clone();
  }

  long c1(int limb, int k) {
    return c1[limb][k];
  }

  long c0(int limb, int output) {
    return c0[limb][output];
  }
}
