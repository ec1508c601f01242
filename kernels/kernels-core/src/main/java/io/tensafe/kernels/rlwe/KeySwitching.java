package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;

/**
 * Applies {@code τ_k} to a two-prime ciphertext in coefficient form and switches it back to the
 * client's key with its {@link GaloisKeys}: {@code (τ(c0) + Σ_t d_t·b_t, Σ_t d_t·a_t)} with d_t the
 * balanced base-2^18 digits of {@code τ(c1)} as an integer modulo Q. It decrypts under s to {@code
 * τ(c0 + c1·s) + Σ_t d_t·e_t}. Work per switch: 12 forward and 4 inverse limb NTTs. Thread-safe.
 */
public final class KeySwitching {
  private static final long DIGIT_MASK = (1L << GaloisKeys.DIGIT_BITS) - 1;
  private static final long HALF_DIGIT = 1L << (GaloisKeys.DIGIT_BITS - 1);

  private final Parameters parameters;
  private final TwoPrimeCrt crt;
  private final long qHigh;
  private final long qLow;
  private final long halfHigh;
  private final long halfLow;

  public KeySwitching(Parameters parameters) {
    this.parameters = parameters;
    this.crt = new TwoPrimeCrt(parameters);
    long q0 = crt.q0().value();
    long q1 = crt.q1().value();
    this.qHigh = Math.multiplyHigh(q0, q1);
    this.qLow = q0 * q1;
    this.halfHigh = qHigh >>> 1;
    this.halfLow = (qLow >>> 1) | (qHigh << 63);
  }

  /**
   * {@code τ_k(ct)} under the client's key: {@code ct[component][limb][N]} in coefficient form, not
   * modified; the result likewise.
   */
  public long[][][] apply(long[][][] ct, int k, GaloisKeys keys) {
    GaloisKeys.SwitchKey key = keys.key(k);
    int n = parameters.ringDegree();
    long[][] c0 = new long[2][];
    long[][] c1 = new long[2][];
    for (int l = 0; l < 2; l++) {
      Modulus q = parameters.moduli().get(l);
      c0[l] = Automorphisms.apply(ct[0][l], k, q);
      c1[l] = Automorphisms.apply(ct[1][l], k, q);
    }
    long[][] digits = digits(c1[0], c1[1]);
    long[][] acc0 = new long[2][n];
    long[][] acc1 = new long[2][n];
    long[] work = new long[n];
    for (int t = 0; t < GaloisKeys.DIGITS; t++) {
      for (int l = 0; l < 2; l++) {
        Modulus q = parameters.moduli().get(l);
        long[] d = digits[t];
        for (int i = 0; i < n; i++) {
          work[i] = d[i] < 0 ? d[i] + q.value() : d[i];
        }
        // Lazy: values in [0, 4q) are valid left operands of the lazy Shoup products below.
        parameters.ntts().get(l).forwardLazyInPlace(work);
        long[] b = key.b()[t][l];
        long[] bShoup = key.bShoup()[t][l];
        long[] a = key.a()[t][l];
        long[] aShoup = key.aShoup()[t][l];
        long[] out0 = acc0[l];
        long[] out1 = acc1[l];
        // Lazy: each product is in [0, 2q), so DIGITS of them sum below 2^59; reduced once below.
        for (int i = 0; i < n; i++) {
          long x = work[i];
          out0[i] += q.mulShoupLazy(x, b[i], bShoup[i]);
          out1[i] += q.mulShoupLazy(x, a[i], aShoup[i]);
        }
      }
    }
    for (int l = 0; l < 2; l++) {
      Modulus q = parameters.moduli().get(l);
      NegacyclicNtt ntt = parameters.ntts().get(l);
      for (int i = 0; i < n; i++) {
        acc0[l][i] = q.reduce(acc0[l][i]);
        acc1[l][i] = q.reduce(acc1[l][i]);
      }
      ntt.inverseInPlace(acc0[l]);
      ntt.inverseInPlace(acc1[l]);
      for (int i = 0; i < n; i++) {
        acc0[l][i] = q.add(acc0[l][i], c0[l][i]);
      }
    }
    return new long[][][] {acc0, acc1};
  }

  /**
   * The balanced digits {@code [DIGITS][N]} of each coefficient c (residues r0, r1) read as the
   * integer in {@code (−Q/2, Q/2]}: {@code Σ_t d_t·2^(18t) ≡ c (mod Q)}, {@code |d_t| ≤ 2^17}.
   */
  long[][] digits(long[] r0, long[] r1) {
    int n = r0.length;
    long[][] out = new long[GaloisKeys.DIGITS][n];
    long q0 = crt.q0().value();
    for (int i = 0; i < n; i++) {
      long t = crt.quotient(r0[i], r1[i]);
      long low = q0 * t;
      long high = Math.multiplyHigh(q0, t);
      long sumLow = low + r0[i];
      high += Long.compareUnsigned(sumLow, low) < 0 ? 1 : 0;
      low = sumLow;
      boolean negative = greater(high, low, halfHigh, halfLow);
      if (negative) {
        long diffLow = qLow - low;
        high = qHigh - high - (Long.compareUnsigned(qLow, low) < 0 ? 1 : 0);
        low = diffLow;
      }
      long carry = 0;
      for (int d = 0; d < GaloisKeys.DIGITS; d++) {
        long raw = bits(high, low, d * GaloisKeys.DIGIT_BITS) + carry;
        carry = 0;
        if (d < GaloisKeys.DIGITS - 1 && raw >= HALF_DIGIT) {
          raw -= 1L << GaloisKeys.DIGIT_BITS;
          carry = 1;
        }
        out[d][i] = negative ? -raw : raw;
      }
    }
    return out;
  }

  private static boolean greater(long aHigh, long aLow, long bHigh, long bLow) {
    int high = Long.compareUnsigned(aHigh, bHigh);
    return high > 0 || (high == 0 && Long.compareUnsigned(aLow, bLow) > 0);
  }

  private static long bits(long high, long low, int from) {
    if (from + GaloisKeys.DIGIT_BITS <= 64) {
      return (low >>> from) & DIGIT_MASK;
    }
    if (from >= 64) {
      return (high >>> (from - 64)) & DIGIT_MASK;
    }
    return ((low >>> from) | (high << (64 - from))) & DIGIT_MASK;
  }
}
