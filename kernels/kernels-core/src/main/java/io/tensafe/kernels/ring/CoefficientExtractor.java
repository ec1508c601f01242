package io.tensafe.kernels.ring;

/**
 * Reads one coefficient of a polynomial from its NTT values without a full inverse transform:
 * {@code m_k = n^-1 · Σ_i v_i · psi^-(2·bitrev(i)+1)·k}, an O(n) inner product with a vector
 * precomputed per position {@code k}. Cheaper than an inverse NTT when only a handful of
 * coefficients are needed.
 *
 * <p>Immutable and thread-safe once built.
 */
public final class CoefficientExtractor {
  private final Modulus modulus;
  private final int position;
  private final long[] weights;
  private final long[] weightsShoup;

  /** Precomputes the weights for coefficient {@code position} of the ring of {@code ntt}. */
  public CoefficientExtractor(NegacyclicNtt ntt, int position) {
    int n = ntt.degree();
    if (position < 0 || position >= n) {
      throw new IllegalArgumentException("position must be in [0, " + n + "), was " + position);
    }
    this.modulus = ntt.modulus();
    this.position = position;
    Modulus q = modulus;
    int logN = Integer.numberOfTrailingZeros(n);
    long psiInverse = q.pow(ntt.psi(), 2L * n - 1);
    long step = q.pow(psiInverse, 2L * position); // psi^-2k
    long value = q.mul(q.pow(n, q.value() - 2), q.pow(psiInverse, position)); // n^-1 · psi^-k
    weights = new long[n];
    weightsShoup = new long[n];
    for (int t = 0; t < n; t++) {
      int i = Integer.reverse(t) >>> (32 - logN); // the index whose evaluation point is psi^(2t+1)
      weights[i] = value;
      weightsShoup[i] = q.shoupPrecompute(value);
      value = q.mul(value, step);
    }
  }

  /** The coefficient index this extractor reads. */
  public int position() {
    return position;
  }

  /**
   * A copy of the extraction weights: coefficient {@link #position()} is {@code Σ_i v_i ·
   * weights[i] mod q} for NTT values {@code v}. Each weight in [0, q).
   */
  public long[] weights() {
    return weights.clone();
  }

  /** Shoup companions of {@link #weights()}, index for index. */
  public long[] weightsShoup() {
    return weightsShoup.clone();
  }

  /**
   * Coefficient {@link #position()} of the polynomial whose NTT values are {@code ntt} (in [0, q)).
   */
  public long extract(long[] ntt) {
    if (ntt.length != weights.length) {
      throw new IllegalArgumentException(
          "expected " + weights.length + " values, got " + ntt.length);
    }
    final long q = modulus.value();
    final long twoQ = 2 * q;
    long sum = 0; // Range: [0, 2q)
    for (int i = 0; i < ntt.length; i++) {
      long v = ntt[i];
      long term = v * weights[i] - Math.unsignedMultiplyHigh(v, weightsShoup[i]) * q; // [0, 2q)
      sum += term;
      sum -= twoQ & ((twoQ - 1 - sum) >> 63);
    }
    return sum >= q ? sum - q : sum;
  }
}
