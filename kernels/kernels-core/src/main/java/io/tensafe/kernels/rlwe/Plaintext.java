package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.ring.RnsPoly;

/**
 * An encoded message: a polynomial (NTT form to be encrypted or multiplied; coefficient form when
 * it comes out of decryption) and the scale its values were multiplied by.
 *
 * @param poly the polynomial; the plaintext owns it
 * @param scale the encoding scale, positive
 */
public record Plaintext(RnsPoly poly, double scale) {
  public Plaintext {
    if (!(scale > 0) || Double.isInfinite(scale)) {
      throw new IllegalArgumentException("scale must be positive and finite, was " + scale);
    }
  }

  public int limbCount() {
    return poly.limbCount();
  }
}
