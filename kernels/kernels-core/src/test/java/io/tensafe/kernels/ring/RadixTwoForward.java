package io.tensafe.kernels.ring;

/**
 * The forward lazy transform one radix-2 stage per pass, as {@link NegacyclicNtt} computed it
 * before stages were fused: the fused transform must give these exact words.
 */
final class RadixTwoForward {
  private RadixTwoForward() {}

  /** The inverse lazy transform one radix-2 stage per pass, as it was before stages were fused. */
  static void inverseLazyInPlace(NegacyclicNtt ntt, long[] a) {
    final int degree = ntt.degree();
    final long[] w = ntt.inverseTwiddles();
    final long[] ws = new long[degree];
    final long q = ntt.modulus().value();
    final Modulus modulus = ntt.modulus();
    for (int k = 1; k < degree; k++) {
      ws[k] = modulus.shoupPrecompute(w[k]);
    }
    final long twoQ = 2 * q;
    for (int m = degree >>> 1, t = 1; m >= 1; m >>>= 1, t <<= 1) {
      for (int i = 0; i < m; i++) {
        final int start = 2 * i * t;
        for (int j = start; j < start + t; j++) {
          long x = a[j];
          long y = a[j + t];
          long sum = x + y;
          a[j] = sum >= twoQ ? sum - twoQ : sum;
          long difference = x - y + twoQ;
          a[j + t] = difference * w[m + i] - Math.unsignedMultiplyHigh(difference, ws[m + i]) * q;
        }
      }
    }
    long inverseDegree = ntt.inverseDegree();
    long inverseDegreeShoup = modulus.shoupPrecompute(inverseDegree);
    for (int j = 0; j < degree; j++) {
      long x = a[j];
      a[j] = x * inverseDegree - Math.unsignedMultiplyHigh(x, inverseDegreeShoup) * q;
    }
  }

  static void forwardLazyInPlace(NegacyclicNtt ntt, long[] a) {
    final int degree = ntt.degree();
    final long[] rootPowers = ntt.forwardTwiddles();
    final long[] rootPowersShoup = ntt.forwardTwiddlesShoup();
    final long q = ntt.modulus().value();
    final long twoQ = 2 * q;
    int m = 1;
    for (int t = degree >>> 1; t >= 1; m <<= 1, t >>>= 1) {
      for (int i = 0; i < m; i++) {
        final long w = rootPowers[m + i];
        final long wShoup = rootPowersShoup[m + i];
        final int start = 2 * i * t;
        for (int j = start; j < start + t; j++) {
          long x = a[j];
          x = x >= twoQ ? x - twoQ : x;
          long y = a[j + t];
          long product = y * w - Math.unsignedMultiplyHigh(y, wShoup) * q;
          a[j] = x + product;
          a[j + t] = x - product + twoQ;
        }
      }
    }
  }
}
