package io.tensafe.kernels.ring;

/**
 * The pointwise loops of hosted HE-LoRA on the CPU: a ciphertext times a plaintext, decrypted, in
 * NTT form, and the inner products that read single coefficients ({@link CoefficientExtractor}). On
 * SIMD lanes when this JVM runs the vector NTT ({@link NttImplementation}), else scalar; both give
 * the same words, in [0, q).
 */
public final class PointwiseLoops {
  private PointwiseLoops() {}

  private static boolean vector(int n) {
    return NttImplementation.configured() == NttImplementation.VECTOR && n >= 2 * VectorNtt.lanes();
  }

  /**
   * {@code out[i] = c0[i]·p[i] + (c1[i]·p[i])·s[i] mod q}: the product of the ciphertext (c0, c1)
   * with the plaintext p, decrypted under s, all in NTT form. Inputs in [0, q), each array of one
   * length; {@code pShoup} and {@code sShoup} are the Shoup companions of p and s.
   */
  public static void decryptedProduct(
      Modulus q,
      long[] c0,
      long[] c1,
      long[] p,
      long[] pShoup,
      long[] s,
      long[] sShoup,
      long[] out) {
    int n = out.length;
    int from =
        vector(n)
            ? VectorPointwise.decryptedProduct(q.value(), c0, c1, p, pShoup, s, sShoup, out)
            : 0;
    for (int i = from; i < n; i++) {
      long product0 = q.mulShoup(c0[i], p[i], pShoup[i]);
      long product1 = q.mulShoup(c1[i], p[i], pShoup[i]);
      out[i] = q.add(product0, q.mulShoup(product1, s[i], sShoup[i]));
    }
  }

  /** {@code Σ v[i]·w[i] mod q} for v in [0, q) and reduced weights w with Shoup companions. */
  static long innerProduct(Modulus modulus, long[] v, long[] w, long[] wShoup) {
    final long q = modulus.value();
    final long twoQ = 2 * q;
    int from = 0;
    long sum = 0; // Range: [0, 2q)
    if (vector(v.length)) {
      from = v.length - v.length % VectorNtt.lanes();
      sum = VectorPointwise.innerProduct(q, v, w, wShoup, from);
    }
    for (int i = from; i < v.length; i++) {
      long x = v[i];
      long term = x * w[i] - Math.unsignedMultiplyHigh(x, wShoup[i]) * q; // [0, 2q)
      sum += term;
      sum -= twoQ & ((twoQ - 1 - sum) >> 63);
    }
    return sum >= q ? sum - q : sum;
  }
}
