package io.tensafe.kernels.ring;

/**
 * The negacyclic NTT's butterflies in plain loops, the reference {@link VectorNtt} matches word for
 * word. Harvey's lazy butterflies with Shoup multiplication ({@link #mulShoup}): forward
 * (Cooley-Tukey) values stay in [0, 4q), inverse (Gentleman-Sande) in [0, 2q).
 *
 * <p>The {@code log2 n} radix-2 stages run two at a time (one pass over the array for each pair of
 * stages, half the memory traffic); every element still goes through exactly the radix-2
 * butterflies, in the same order and with the same twiddles, so the lazy output is bit for bit that
 * of one stage per pass (accelerator backends match it).
 *
 * <p>The paired forward stages stay inline in {@link #forwardLazy}: as a method of their own they
 * ran 4% slower (JMH {@code NttBenchmark.forward}, n = 2^14, scalar: 160 against 154 µs, same run;
 * docs/benchmarks.md).
 *
 * <p>Invariants: as {@link NegacyclicNtt} ({@code 4q < 2^62}, so lazy sums never overflow).
 * Instances are immutable and thread-safe.
 */
final class ScalarNtt implements NttLoops {
  private final int degree;
  private final int logDegree;
  private final long q;
  private final long twoQ;
  private final NttTables tables;

  ScalarNtt(NttTables tables) {
    this.degree = tables.degree();
    this.logDegree = Integer.numberOfTrailingZeros(degree);
    this.q = tables.q();
    this.twoQ = 2 * q;
    this.tables = tables;
  }

  /**
   * {@code x·w mod q} up to one q, by Shoup's method: in [0, 2q) for any {@code x} in [0, 2^64) and
   * {@code w} in [0, q) with {@code wShoup = floor(w·2^64 / q)}.
   */
  static long mulShoup(long x, long w, long wShoup, long q) {
    return x * w - Math.unsignedMultiplyHigh(x, wShoup) * q;
  }

  /** {@code x} in [0, 4q) reduced to [0, 2q). */
  static long below2q(long x, long twoQ) {
    return x >= twoQ ? x - twoQ : x;
  }

  @Override
  public void forwardLazy(long[] a) {
    final long q = this.q;
    final long twoQ = this.twoQ;
    final long[] forward = tables.forward();
    final long[] forwardShoup = tables.forwardShoup();
    int m = 1;
    int t = degree >>> 1;
    if (t < 2) {
      forwardPairs(a, m);
      return;
    }
    // Stages with t >= 4 go in pairs (t, t/2); with an odd count, the first runs alone.
    if (((logDegree - 2) & 1) == 1) {
      for (int i = 0; i < m; i++) {
        final long w = forward[m + i];
        final long wShoup = forwardShoup[m + i];
        final int start = 2 * i * t;
        for (int j = start; j < start + t; j++) {
          long x = below2q(a[j], twoQ);
          long product = mulShoup(a[j + t], w, wShoup, q);
          a[j] = x + product;
          a[j + t] = x - product + twoQ;
        }
      }
      m <<= 1;
      t >>>= 1;
    }
    // Stages t and t/2 in one pass: stage t with one twiddle a group, t/2 with one a half.
    for (; t >= 8; m <<= 2, t >>>= 2) {
      final int h = t >>> 1;
      for (int i = 0; i < m; i++) {
        final long w = forward[m + i];
        final long wShoup = forwardShoup[m + i];
        final long wLeft = forward[2 * m + 2 * i];
        final long wLeftShoup = forwardShoup[2 * m + 2 * i];
        final long wRight = forward[2 * m + 2 * i + 1];
        final long wRightShoup = forwardShoup[2 * m + 2 * i + 1];
        final int start = 2 * i * t;
        final int end = start + h;
        for (int j = start; j < end; j++) {
          long a0 = a[j];
          long a1 = a[j + h];
          long a2 = a[j + t];
          long a3 = a[j + t + h];
          // Stage t: (a0, a2) and (a1, a3), all in [0, 4q).
          a0 = below2q(a0, twoQ);
          long p = mulShoup(a2, w, wShoup, q);
          long b0 = a0 + p;
          long b2 = a0 - p + twoQ;
          a1 = below2q(a1, twoQ);
          p = mulShoup(a3, w, wShoup, q);
          long b1 = a1 + p;
          long b3 = a1 - p + twoQ;
          // Stage t/2: (b0, b1) and (b2, b3).
          b0 = below2q(b0, twoQ);
          p = mulShoup(b1, wLeft, wLeftShoup, q);
          a[j] = b0 + p;
          a[j + h] = b0 - p + twoQ;
          b2 = below2q(b2, twoQ);
          p = mulShoup(b3, wRight, wRightShoup, q);
          a[j + t] = b2 + p;
          a[j + t + h] = b2 - p + twoQ;
        }
      }
    }
    forwardLastTwoStages(a, m);
  }

  /** Stages t = 2 and t = 1 together, on blocks of four. */
  private void forwardLastTwoStages(long[] a, int m) {
    final long q = this.q;
    final long twoQ = this.twoQ;
    final long[] forward = tables.forward();
    final long[] forwardShoup = tables.forwardShoup();
    for (int i = 0, j = 0; i < m; i++, j += 4) {
      final long w = forward[m + i];
      final long wShoup = forwardShoup[m + i];
      long a0 = below2q(a[j], twoQ);
      long a1 = below2q(a[j + 1], twoQ);
      long p0 = mulShoup(a[j + 2], w, wShoup, q);
      long p1 = mulShoup(a[j + 3], w, wShoup, q);
      long b0 = below2q(a0 + p0, twoQ);
      long b1 = a1 + p1;
      long b2 = below2q(a0 - p0 + twoQ, twoQ);
      long b3 = a1 - p1 + twoQ;
      long p = mulShoup(b1, forward[2 * m + 2 * i], forwardShoup[2 * m + 2 * i], q);
      a[j] = b0 + p;
      a[j + 1] = b0 - p + twoQ;
      p = mulShoup(b3, forward[2 * m + 2 * i + 1], forwardShoup[2 * m + 2 * i + 1], q);
      a[j + 2] = b2 + p;
      a[j + 3] = b2 - p + twoQ;
    }
  }

  /** The t = 1 stage alone (ring degree 2): butterflies on adjacent pairs. */
  private void forwardPairs(long[] a, int m) {
    final long[] forward = tables.forward();
    final long[] forwardShoup = tables.forwardShoup();
    for (int i = 0, j = 0; i < m; i++, j += 2) {
      long x = below2q(a[j], twoQ);
      long product = mulShoup(a[j + 1], forward[m + i], forwardShoup[m + i], q);
      a[j] = x + product;
      a[j + 1] = x - product + twoQ;
    }
  }

  @Override
  public void forward(long[] a) {
    forwardLazy(a);
    for (int j = 0; j < degree; j++) {
      long x = below2q(a[j], twoQ);
      a[j] = x >= q ? x - q : x;
    }
  }

  @Override
  public void inverseLazy(long[] a) {
    final long[] inverse = tables.inverse();
    final long[] inverseShoup = tables.inverseShoup();
    final long inverseDegree = tables.inverseDegree();
    final long inverseDegreeShoup = tables.inverseDegreeShoup();
    int m = degree >>> 1;
    if (m < 2) {
      // Ring degree 2: the one stage (t = 1).
      inverseButterflies(a, 0, 1, inverse[1], inverseShoup[1]);
    } else {
      inverseFirstTwoStages(a, m);
      m >>>= 2;
      int t = 4;
      // The remaining stages in pairs (t, 2t), each element through the same radix-2 butterflies
      // in the same order as one stage per pass (bit for bit the same words).
      for (; m >= 2; m >>>= 2, t <<= 2) {
        inverseStagePair(a, m, t);
      }
      if (m == 1) {
        // An odd number of stages after the first two: the last (t = n/2) alone.
        inverseButterflies(a, 0, t, inverse[1], inverseShoup[1]);
      }
    }
    for (int j = 0; j < degree; j++) {
      a[j] = mulShoup(a[j], inverseDegree, inverseDegreeShoup, q); // [0, 2q)
    }
  }

  /** Stages t = 1 and t = 2 together, on blocks of four. */
  private void inverseFirstTwoStages(long[] a, int m) {
    final long[] inverse = tables.inverse();
    final long[] inverseShoup = tables.inverseShoup();
    final int m2 = m >>> 1;
    for (int k = 0, j = 0; k < m2; k++, j += 4) {
      long a0 = a[j];
      long a1 = a[j + 1];
      long a2 = a[j + 2];
      long a3 = a[j + 3];
      long b0 = below2q(a0 + a1, twoQ);
      long b1 = mulShoup(a0 - a1 + twoQ, inverse[m + 2 * k], inverseShoup[m + 2 * k], q);
      long b2 = below2q(a2 + a3, twoQ);
      long b3 = mulShoup(a2 - a3 + twoQ, inverse[m + 2 * k + 1], inverseShoup[m + 2 * k + 1], q);
      final long w = inverse[m2 + k];
      final long wShoup = inverseShoup[m2 + k];
      a[j] = below2q(b0 + b2, twoQ);
      a[j + 2] = mulShoup(b0 - b2 + twoQ, w, wShoup, q);
      a[j + 1] = below2q(b1 + b3, twoQ);
      a[j + 3] = mulShoup(b1 - b3 + twoQ, w, wShoup, q);
    }
  }

  /** Stages t and 2t in one pass, over groups of {@code 4t} words. */
  private void inverseStagePair(long[] a, int m, int t) {
    final long[] inverse = tables.inverse();
    final long[] inverseShoup = tables.inverseShoup();
    final int half = m >>> 1;
    for (int i = 0; i < half; i++) {
      final long wLeft = inverse[m + 2 * i];
      final long wLeftShoup = inverseShoup[m + 2 * i];
      final long wRight = inverse[m + 2 * i + 1];
      final long wRightShoup = inverseShoup[m + 2 * i + 1];
      final long w = inverse[half + i];
      final long wShoup = inverseShoup[half + i];
      final int start = 4 * i * t;
      for (int j = start; j < start + t; j++) {
        long a0 = a[j];
        long a1 = a[j + t];
        long a2 = a[j + 2 * t];
        long a3 = a[j + 3 * t];
        long b0 = below2q(a0 + a1, twoQ); // sums in [0, 4q), reduced to [0, 2q)
        long b1 = mulShoup(a0 - a1 + twoQ, wLeft, wLeftShoup, q); // differences in (0, 4q)
        long b2 = below2q(a2 + a3, twoQ);
        long b3 = mulShoup(a2 - a3 + twoQ, wRight, wRightShoup, q);
        a[j] = below2q(b0 + b2, twoQ);
        a[j + 2 * t] = mulShoup(b0 - b2 + twoQ, w, wShoup, q);
        a[j + t] = below2q(b1 + b3, twoQ);
        a[j + 3 * t] = mulShoup(b1 - b3 + twoQ, w, wShoup, q);
      }
    }
  }

  /** Gentleman-Sande butterflies (j, j + t) for j in [start, start + t), one twiddle. */
  private void inverseButterflies(long[] a, int start, int t, long w, long wShoup) {
    for (int j = start; j < start + t; j++) {
      long x = a[j];
      long y = a[j + t];
      a[j] = below2q(x + y, twoQ);
      a[j + t] = mulShoup(x - y + twoQ, w, wShoup, q);
    }
  }

  @Override
  public void inverse(long[] a) {
    inverseLazy(a);
    for (int j = 0; j < degree; j++) {
      long x = a[j];
      a[j] = x >= q ? x - q : x;
    }
  }
}
