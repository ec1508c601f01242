package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.ring.Modulus;

/**
 * {@code τ_k: X → X^k} on a polynomial in coefficient form modulo {@code X^N + 1} (k odd): the
 * coefficient at i moves to {@code i·k mod 2N}, negated when that is N or more. A signed
 * permutation, so norms are unchanged. Also the negacyclic monomial product {@link #rotate}.
 */
public final class Automorphisms {
  private Automorphisms() {}

  /** {@code τ_k(a)}, a fresh array. */
  public static long[] apply(long[] a, int k, Modulus q) {
    int n = a.length;
    int mask = 2 * n - 1;
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      int j = (int) (((long) i * k) & mask);
      out[j < n ? j : j - n] = j < n ? a[i] : q.negate(a[i]);
    }
    return out;
  }

  /** {@code X^shift·a} for shift in [0, 2N) (N a power of two), a fresh array. */
  public static long[] rotate(long[] a, int shift, Modulus q) {
    int n = a.length;
    int mask = 2 * n - 1;
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      int j = (i + shift) & mask;
      out[j < n ? j : j - n] = j < n ? a[i] : q.negate(a[i]);
    }
    return out;
  }
}
