package io.tensafe.kernels.ring;

/**
 * The negacyclic number-theoretic transform over {@code Z_q[X]/(X^n + 1)}, with precomputed twiddle
 * tables in Shoup form and Harvey's lazy butterflies.
 *
 * <p>Forward: Cooley-Tukey, natural-order input, bit-reversed output: after {@link
 * #forwardInPlace}, {@code a[k] = A(psi^(2·bitrev(k) + 1))} where {@code psi} is {@link #psi()}, a
 * primitive {@code 2n}-th root of unity, and {@code bitrev} reverses {@code log2 n} bits. Inverse:
 * Gentleman-Sande, bit-reversed input, natural-order output, including the factor {@code n^-1}. A
 * product in the transformed domain is the element-wise product, whatever the order.
 *
 * <p>Invariants: {@code n} is a power of two in [2, 2^17]; {@code q} is prime with {@code q ≡ 1
 * (mod 2n)} and fewer than {@link Modulus#MAX_BITS} + 1 bits, so {@code 4q < 2^62} and lazy values
 * never overflow. Instances are immutable after construction and thread-safe; the arrays passed to
 * the transforms belong to the caller.
 *
 * <p>The butterflies run in plain loops or on SIMD lanes ({@link NttImplementation}); both give the
 * same words, lazy ones included.
 */
public final class NegacyclicNtt {
  /** Largest ring degree this class accepts. */
  public static final int MAX_DEGREE = 1 << 17;

  private final Modulus modulus;
  private final int degree;
  private final int logDegree;
  private final long psi;
  // Index k in [1, n): psi^bitrev(k), as the forward butterflies of stage m, group i use k = m + i.
  private final long[] rootPowers;
  private final long[] rootPowersShoup;
  // Index k in [1, n): the inverse of rootPowers[k].
  private final long[] inverseRootPowers;
  private final long[] inverseRootPowersShoup;
  private final long inverseDegree;
  private final long inverseDegreeShoup;
  // The SIMD loops, or null where this instance runs the scalar ones.
  private final VectorNtt vector;

  private NegacyclicNtt(Modulus modulus, int degree, NttImplementation implementation) {
    this.modulus = modulus;
    this.degree = degree;
    this.logDegree = Integer.numberOfTrailingZeros(degree);
    this.psi = primitiveRoot(modulus, 2L * degree);
    long psiInverse = modulus.pow(psi, 2L * degree - 1);
    rootPowers = new long[degree];
    rootPowersShoup = new long[degree];
    inverseRootPowers = new long[degree];
    inverseRootPowersShoup = new long[degree];
    long power = 1;
    long inversePower = 1;
    for (int i = 0; i < degree; i++) {
      int k = Integer.reverse(i) >>> (32 - logDegree);
      rootPowers[k] = power;
      rootPowersShoup[k] = modulus.shoupPrecompute(power);
      inverseRootPowers[k] = inversePower;
      inverseRootPowersShoup[k] = modulus.shoupPrecompute(inversePower);
      power = modulus.mul(power, psi);
      inversePower = modulus.mul(inversePower, psiInverse);
    }
    inverseDegree = modulus.pow(degree, modulus.value() - 2);
    inverseDegreeShoup = modulus.shoupPrecompute(inverseDegree);
    vector =
        implementation == NttImplementation.VECTOR && degree >= 2 * VectorNtt.lanes()
            ? new VectorNtt(
                degree,
                modulus.value(),
                rootPowers,
                rootPowersShoup,
                inverseRootPowers,
                inverseRootPowersShoup,
                inverseDegree,
                inverseDegreeShoup)
            : null;
  }

  /**
   * Builds the tables for ring degree {@code n} modulo {@code q}, with the implementation this JVM
   * is configured for ({@link NttImplementation}).
   *
   * @throws IllegalArgumentException if {@code n} is not a power of two in [2, MAX_DEGREE], or
   *     {@code q} is not a prime congruent to 1 modulo {@code 2n}
   */
  public static NegacyclicNtt of(Modulus q, int n) {
    return of(q, n, NttImplementation.configured());
  }

  /**
   * As {@link #of(Modulus, int)}, with the given implementation (for side-by-side measurements and
   * tests). A ring smaller than two SIMD vectors runs scalar whatever is asked.
   *
   * @throws IllegalStateException if {@code VECTOR} is asked for and the {@value
   *     NttImplementation#VECTOR_MODULE} module is not loaded
   */
  public static NegacyclicNtt of(Modulus q, int n, NttImplementation implementation) {
    if (implementation == NttImplementation.VECTOR && !NttImplementation.vectorModulePresent()) {
      throw new IllegalStateException(
          "the vector NTT needs the JVM option --add-modules " + NttImplementation.VECTOR_MODULE);
    }
    if (n < 2 || n > MAX_DEGREE || Integer.bitCount(n) != 1) {
      throw new IllegalArgumentException(
          "ring degree must be a power of two in [2, " + MAX_DEGREE + "], was " + n);
    }
    if (q.value() % (2L * n) != 1) {
      throw new IllegalArgumentException(
          "modulus " + q.value() + " is not congruent to 1 mod 2n = " + 2L * n);
    }
    if (!Primes.isPrime(q.value())) {
      throw new IllegalArgumentException("modulus " + q.value() + " is not prime");
    }
    return new NegacyclicNtt(q, n, implementation);
  }

  /**
   * The smallest-generator primitive {@code order}-th root of unity: {@code g^((q-1)/order)} for
   * the first {@code g = 2, 3, ...} whose power has order exactly {@code order} (a power of two, so
   * it suffices that its {@code order/2}-th power is {@code -1}).
   */
  private static long primitiveRoot(Modulus q, long order) {
    long cofactor = (q.value() - 1) / order;
    for (long g = 2; g < q.value(); g++) {
      long candidate = q.pow(g, cofactor);
      if (q.pow(candidate, order / 2) == q.value() - 1) {
        return candidate;
      }
    }
    throw new IllegalStateException("no primitive root of order " + order + " mod " + q.value());
  }

  public Modulus modulus() {
    return modulus;
  }

  /**
   * The loops this instance runs: {@code VECTOR} only if asked for and the ring is large enough.
   */
  public NttImplementation implementation() {
    return vector == null ? NttImplementation.SCALAR : NttImplementation.VECTOR;
  }

  /** The ring degree {@code n}. */
  public int degree() {
    return degree;
  }

  /** The primitive {@code 2n}-th root of unity the transform evaluates at. Range: [2, q). */
  public long psi() {
    return psi;
  }

  /**
   * A copy of the forward twiddle table, for accelerator backends that upload it: index {@code k}
   * in [1, n) holds {@code psi^bitrev(k)} (index 0 is unused), each in [0, q). Stage {@code m} of
   * the forward transform (m = 1, 2, 4, ... groups) uses index {@code m + group}.
   */
  public long[] forwardTwiddles() {
    return rootPowers.clone();
  }

  /** Shoup companions of {@link #forwardTwiddles()}, index for index. */
  public long[] forwardTwiddlesShoup() {
    return rootPowersShoup.clone();
  }

  /** A copy of the inverse twiddle table: index {@code k} holds the inverse of the forward one. */
  public long[] inverseTwiddles() {
    return inverseRootPowers.clone();
  }

  /** Shoup companions of {@link #inverseTwiddles()}, index for index. */
  public long[] inverseTwiddlesShoup() {
    return inverseRootPowersShoup.clone();
  }

  /** {@code n^-1 mod q}, the inverse transform's final factor. Range: [1, q). */
  public long inverseDegree() {
    return inverseDegree;
  }

  /**
   * Forward transform, leaving values partly reduced.
   *
   * <p>Range: input in [0, 4q); output in [0, 4q), congruent to the exact transform.
   *
   * <p>The {@code log2 n} radix-2 stages run two at a time (one pass over the array for each pair
   * of stages, half the memory traffic); every element still goes through exactly the radix-2
   * butterflies, in the same order and with the same twiddles, so the lazy output is bit for bit
   * that of one stage per pass (accelerator backends match it).
   */
  public void forwardLazyInPlace(long[] a) {
    checkLength(a);
    if (vector != null) {
      vector.forwardLazy(a);
      return;
    }
    final long q = modulus.value();
    final long twoQ = 2 * q;
    int m = 1;
    int t = degree >>> 1;
    if (t < 2) {
      lastForwardStage(a, m, q, twoQ);
      return;
    }
    // Stages with t >= 4 go in pairs (t, t/2); with an odd count, the first runs alone.
    if (((logDegree - 2) & 1) == 1) {
      for (int i = 0; i < m; i++) {
        final long w = rootPowers[m + i];
        final long wShoup = rootPowersShoup[m + i];
        final int start = 2 * i * t;
        final int end = start + t;
        for (int j = start; j < end; j++) {
          long x = a[j];
          x = x >= twoQ ? x - twoQ : x; // [0, 2q)
          long y = a[j + t];
          long product = y * w - Math.unsignedMultiplyHigh(y, wShoup) * q; // [0, 2q)
          a[j] = x + product; // [0, 4q)
          a[j + t] = x - product + twoQ; // (0, 4q)
        }
      }
      m <<= 1;
      t >>>= 1;
    }
    for (; t >= 8; m <<= 2, t >>>= 2) {
      final int h = t >>> 1;
      for (int i = 0; i < m; i++) {
        // Stage t: one twiddle for the group; stage t/2: one for each half of it.
        final long w = rootPowers[m + i];
        final long wShoup = rootPowersShoup[m + i];
        final long wLeft = rootPowers[2 * m + 2 * i];
        final long wLeftShoup = rootPowersShoup[2 * m + 2 * i];
        final long wRight = rootPowers[2 * m + 2 * i + 1];
        final long wRightShoup = rootPowersShoup[2 * m + 2 * i + 1];
        final int start = 2 * i * t;
        final int end = start + h;
        for (int j = start; j < end; j++) {
          long a0 = a[j];
          long a1 = a[j + h];
          long a2 = a[j + t];
          long a3 = a[j + t + h];
          // Stage t: (a0, a2) and (a1, a3), all in [0, 4q).
          a0 = a0 >= twoQ ? a0 - twoQ : a0;
          long p = a2 * w - Math.unsignedMultiplyHigh(a2, wShoup) * q;
          long b0 = a0 + p;
          long b2 = a0 - p + twoQ;
          a1 = a1 >= twoQ ? a1 - twoQ : a1;
          p = a3 * w - Math.unsignedMultiplyHigh(a3, wShoup) * q;
          long b1 = a1 + p;
          long b3 = a1 - p + twoQ;
          // Stage t/2: (b0, b1) and (b2, b3).
          b0 = b0 >= twoQ ? b0 - twoQ : b0;
          p = b1 * wLeft - Math.unsignedMultiplyHigh(b1, wLeftShoup) * q;
          a[j] = b0 + p;
          a[j + h] = b0 - p + twoQ;
          b2 = b2 >= twoQ ? b2 - twoQ : b2;
          p = b3 * wRight - Math.unsignedMultiplyHigh(b3, wRightShoup) * q;
          a[j + t] = b2 + p;
          a[j + t + h] = b2 - p + twoQ;
        }
      }
    }
    // Stages t = 2 and t = 1 together, on blocks of four.
    for (int i = 0, j = 0; i < m; i++, j += 4) {
      final long w = rootPowers[m + i];
      final long wShoup = rootPowersShoup[m + i];
      long a0 = a[j];
      long a1 = a[j + 1];
      long a2 = a[j + 2];
      long a3 = a[j + 3];
      a0 = a0 >= twoQ ? a0 - twoQ : a0;
      a1 = a1 >= twoQ ? a1 - twoQ : a1;
      long p0 = a2 * w - Math.unsignedMultiplyHigh(a2, wShoup) * q;
      long p1 = a3 * w - Math.unsignedMultiplyHigh(a3, wShoup) * q;
      long b0 = a0 + p0;
      long b1 = a1 + p1;
      long b2 = a0 - p0 + twoQ;
      long b3 = a1 - p1 + twoQ;
      b0 = b0 >= twoQ ? b0 - twoQ : b0;
      long p =
          b1 * rootPowers[2 * m + 2 * i]
              - Math.unsignedMultiplyHigh(b1, rootPowersShoup[2 * m + 2 * i]) * q;
      a[j] = b0 + p;
      a[j + 1] = b0 - p + twoQ;
      b2 = b2 >= twoQ ? b2 - twoQ : b2;
      p =
          b3 * rootPowers[2 * m + 2 * i + 1]
              - Math.unsignedMultiplyHigh(b3, rootPowersShoup[2 * m + 2 * i + 1]) * q;
      a[j + 2] = b2 + p;
      a[j + 3] = b2 - p + twoQ;
    }
  }

  /** Gentleman-Sande butterflies (j, j + t) for j in [start, start + t), one twiddle. */
  private static void inverseButterflies(
      long[] a, int start, int t, long w, long wShoup, long q, long twoQ) {
    for (int j = start; j < start + t; j++) {
      long x = a[j];
      long y = a[j + t];
      long sum = x + y; // [0, 4q)
      a[j] = sum >= twoQ ? sum - twoQ : sum; // [0, 2q)
      long difference = x - y + twoQ; // (0, 4q)
      a[j + t] = difference * w - Math.unsignedMultiplyHigh(difference, wShoup) * q; // [0, 2q)
    }
  }

  /** The t = 1 stage alone (ring degree 2): butterflies on adjacent pairs. */
  private void lastForwardStage(long[] a, int m, long q, long twoQ) {
    for (int i = 0, j = 0; i < m; i++, j += 2) {
      long x = a[j];
      x = x >= twoQ ? x - twoQ : x;
      long y = a[j + 1];
      long product =
          y * rootPowers[m + i] - Math.unsignedMultiplyHigh(y, rootPowersShoup[m + i]) * q;
      a[j] = x + product;
      a[j + 1] = x - product + twoQ;
    }
  }

  /** Forward transform. Range: input in [0, 4q); output in [0, q). */
  public void forwardInPlace(long[] a) {
    if (vector != null) {
      checkLength(a);
      vector.forward(a);
      return;
    }
    forwardLazyInPlace(a);
    final long q = modulus.value();
    final long twoQ = 2 * q;
    for (int j = 0; j < degree; j++) {
      long x = a[j];
      x = x >= twoQ ? x - twoQ : x;
      a[j] = x >= q ? x - q : x;
    }
  }

  /**
   * Inverse transform including the factor {@code n^-1}, leaving values partly reduced.
   *
   * <p>Range: input in [0, 2q); output in [0, 2q), congruent to the exact inverse.
   */
  public void inverseLazyInPlace(long[] a) {
    checkLength(a);
    if (vector != null) {
      vector.inverseLazy(a);
      return;
    }
    final long q = modulus.value();
    final long twoQ = 2 * q;
    int m = degree >>> 1;
    if (m < 2) {
      // Ring degree 2: the one stage (t = 1).
      inverseButterflies(a, 0, 1, inverseRootPowers[1], inverseRootPowersShoup[1], q, twoQ);
    } else {
      // Stages t = 1 and t = 2 together, on blocks of four.
      final int m2 = m >>> 1;
      for (int k = 0, j = 0; k < m2; k++, j += 4) {
        long a0 = a[j];
        long a1 = a[j + 1];
        long a2 = a[j + 2];
        long a3 = a[j + 3];
        long sum = a0 + a1;
        long b0 = sum >= twoQ ? sum - twoQ : sum;
        long difference = a0 - a1 + twoQ;
        long b1 =
            difference * inverseRootPowers[m + 2 * k]
                - Math.unsignedMultiplyHigh(difference, inverseRootPowersShoup[m + 2 * k]) * q;
        sum = a2 + a3;
        long b2 = sum >= twoQ ? sum - twoQ : sum;
        difference = a2 - a3 + twoQ;
        long b3 =
            difference * inverseRootPowers[m + 2 * k + 1]
                - Math.unsignedMultiplyHigh(difference, inverseRootPowersShoup[m + 2 * k + 1]) * q;
        final long w = inverseRootPowers[m2 + k];
        final long wShoup = inverseRootPowersShoup[m2 + k];
        sum = b0 + b2;
        a[j] = sum >= twoQ ? sum - twoQ : sum;
        difference = b0 - b2 + twoQ;
        a[j + 2] = difference * w - Math.unsignedMultiplyHigh(difference, wShoup) * q;
        sum = b1 + b3;
        a[j + 1] = sum >= twoQ ? sum - twoQ : sum;
        difference = b1 - b3 + twoQ;
        a[j + 3] = difference * w - Math.unsignedMultiplyHigh(difference, wShoup) * q;
      }
      m = m2 >>> 1;
      int t = 4;
      // The remaining stages in pairs (t, 2t), each element through the same radix-2 butterflies
      // in the same order as one stage per pass (bit for bit the same words).
      for (; m >= 2; m >>>= 2, t <<= 2) {
        final int half = m >>> 1;
        for (int i = 0; i < half; i++) {
          final long wLeft = inverseRootPowers[m + 2 * i];
          final long wLeftShoup = inverseRootPowersShoup[m + 2 * i];
          final long wRight = inverseRootPowers[m + 2 * i + 1];
          final long wRightShoup = inverseRootPowersShoup[m + 2 * i + 1];
          final long w = inverseRootPowers[half + i];
          final long wShoup = inverseRootPowersShoup[half + i];
          final int start = 4 * i * t;
          final int end = start + t;
          for (int j = start; j < end; j++) {
            long a0 = a[j];
            long a1 = a[j + t];
            long a2 = a[j + 2 * t];
            long a3 = a[j + 3 * t];
            long sum = a0 + a1; // [0, 4q)
            long b0 = sum >= twoQ ? sum - twoQ : sum; // [0, 2q)
            long difference = a0 - a1 + twoQ; // (0, 4q)
            long b1 = difference * wLeft - Math.unsignedMultiplyHigh(difference, wLeftShoup) * q;
            sum = a2 + a3;
            long b2 = sum >= twoQ ? sum - twoQ : sum;
            difference = a2 - a3 + twoQ;
            long b3 = difference * wRight - Math.unsignedMultiplyHigh(difference, wRightShoup) * q;
            sum = b0 + b2;
            a[j] = sum >= twoQ ? sum - twoQ : sum;
            difference = b0 - b2 + twoQ;
            a[j + 2 * t] = difference * w - Math.unsignedMultiplyHigh(difference, wShoup) * q;
            sum = b1 + b3;
            a[j + t] = sum >= twoQ ? sum - twoQ : sum;
            difference = b1 - b3 + twoQ;
            a[j + 3 * t] = difference * w - Math.unsignedMultiplyHigh(difference, wShoup) * q;
          }
        }
      }
      if (m == 1) {
        // An odd number of stages after the first two: the last (t = n/2) alone.
        inverseButterflies(a, 0, t, inverseRootPowers[1], inverseRootPowersShoup[1], q, twoQ);
      }
    }
    for (int j = 0; j < degree; j++) {
      long x = a[j];
      a[j] = x * inverseDegree - Math.unsignedMultiplyHigh(x, inverseDegreeShoup) * q; // [0, 2q)
    }
  }

  /** Inverse transform including {@code n^-1}. Range: input in [0, 2q); output in [0, q). */
  public void inverseInPlace(long[] a) {
    if (vector != null) {
      checkLength(a);
      vector.inverse(a);
      return;
    }
    inverseLazyInPlace(a);
    final long q = modulus.value();
    for (int j = 0; j < degree; j++) {
      long x = a[j];
      a[j] = x >= q ? x - q : x;
    }
  }

  private void checkLength(long[] a) {
    if (a.length != degree) {
      throw new IllegalArgumentException(
          "polynomial has " + a.length + " coefficients, the ring has " + degree);
    }
  }
}
