package io.tensafe.kernels.protocol;

import io.tensafe.kernels.params.Parameters;

/**
 * A product ciphertext switched down to the modulus {@code 2^bits} and read at a few output
 * coefficients: {@code c1} whole and {@code c0} only at the outputs, both in coefficient form, each
 * in [0, 2^bits). Decrypting output i gives {@code c0[i] + (c1·s)[position i] mod 2^bits}, about
 * {@code m·2^bits/Q} for the message m the ciphertext held modulo Q, plus a rounding error of at
 * most {@code (1 + ‖s‖₁)/2 + 2^-12}. Round two of private mode answers with these (ADR 0017).
 *
 * <p>Immutable; the arrays are never handed out.
 */
public final class SwitchedAnswer {
  private final Parameters parameters;
  private final int bits;
  private final long[] c1;
  private final long[] c0;
  private final double scale;

  SwitchedAnswer(Parameters parameters, int bits, long[] c1, long[] c0, double scale) {
    this.parameters = parameters;
    this.bits = bits;
    this.c1 = c1;
    this.c0 = c0;
    this.scale = scale;
  }

  public Parameters parameters() {
    return parameters;
  }

  /** log2 of the modulus it was switched to. Range: [1, {@link MaskedAnswers#MAX_BITS}]. */
  public int bits() {
    return bits;
  }

  /** The output coefficients it carries. */
  public int outputs() {
    return c0.length;
  }

  /** The scale of the values before the switch (the product's scale modulo Q). */
  public double scale() {
    return scale;
  }

  long[] c1() {
    return c1;
  }

  long c0(int output) {
    return c0[output];
  }
}
