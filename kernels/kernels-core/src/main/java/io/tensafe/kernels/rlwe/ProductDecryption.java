package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.ring.Modulus;

/**
 * ct×pt followed by decryption, fused into one pass over one limb: for every NTT slot it computes
 * the product ciphertext {@code (c0·p, c1·p)} and then decrypts it, {@code c0·p + (c1·p)·s}. The
 * operations are exactly those of {@link Evaluator#multiplyPlain} then {@link
 * Decryptor#decryptToNtt} (a test checks the results are equal); fusing only avoids materialising
 * the product ciphertext. The plaintext multiplies the ciphertext before the key is applied, never
 * the other way round.
 */
public final class ProductDecryption {
  private ProductDecryption() {}

  /**
   * Writes the decrypted NTT values of {@code ct × pt} modulo the first prime into {@code out}.
   * Range: output in [0, q).
   */
  public static void multiplyPlainDecryptInto(
      Ciphertext ct, ShoupPlaintext pt, SecretKey key, long[] out) {
    if (!key.parameters().equals(ct.parameters())) {
      throw new IllegalArgumentException("ciphertext and key have different parameters");
    }
    Modulus modulus = ct.parameters().moduli().getFirst();
    final long q = modulus.value();
    long[] c0 = ct.c0().limb(0);
    long[] c1 = ct.c1().limb(0);
    long[] p = pt.plaintext().poly().limb(0);
    long[] pShoup = pt.shoup(0);
    long[] s = key.ntt().limb(0);
    long[] sShoup = key.nttShoup(0);
    if (out.length != c0.length || p.length != c0.length) {
      throw new IllegalArgumentException(
          "operands and output must all have " + c0.length + " values");
    }
    for (int i = 0; i < out.length; i++) {
      long product0 = modulus.mulShoup(c0[i], p[i], pShoup[i]); // c0·p
      long product1 = modulus.mulShoup(c1[i], p[i], pShoup[i]); // c1·p
      long decrypted = product0 + modulus.mulShoup(product1, s[i], sShoup[i]); // + (c1·p)·s
      out[i] = decrypted >= q ? decrypted - q : decrypted;
    }
  }
}
