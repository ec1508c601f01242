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
 * <p>The butterflies run in plain loops ({@link ScalarNtt}) or on SIMD lanes, as {@link
 * NttImplementation} configures: of doubles with fused multiply-adds for primes below 2^50 ({@link
 * FmaNtt}, ADR 0033), else of 64-bit words ({@link VectorNtt}). The reduced transforms give the
 * same words whichever runs; the lazy ones give congruent words in their stated ranges (the 64-bit
 * loops the same lazy words, the FMA loops fully reduced ones).
 */
public final class NegacyclicNtt {
  /** Largest ring degree this class accepts. */
  public static final int MAX_DEGREE = 1 << 17;

  private final Modulus modulus;
  private final long psi;
  private final NttTables tables;
  // The loops this instance runs: scalar, or on SIMD lanes.
  private final NttLoops loops;

  private NegacyclicNtt(Modulus modulus, int degree, NttImplementation implementation) {
    this.modulus = modulus;
    int logDegree = Integer.numberOfTrailingZeros(degree);
    this.psi = primitiveRoot(modulus, 2L * degree);
    long psiInverse = modulus.pow(psi, 2L * degree - 1);
    long[] rootPowers = new long[degree];
    long[] rootPowersShoup = new long[degree];
    long[] inverseRootPowers = new long[degree];
    long[] inverseRootPowersShoup = new long[degree];
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
    long inverseDegree = modulus.pow(degree, modulus.value() - 2);
    tables =
        new NttTables(
            degree,
            modulus.value(),
            rootPowers,
            rootPowersShoup,
            inverseRootPowers,
            inverseRootPowersShoup,
            inverseDegree,
            modulus.shoupPrecompute(inverseDegree));
    if (implementation == NttImplementation.VECTOR && degree >= 2 * VectorNtt.lanes()) {
      loops =
          FmaNtt.supports(modulus.value())
                  && NttImplementation.fmaInHardware()
                  && VectorNtt.lanes() >= 2
              ? new FmaNtt(tables)
              : new VectorNtt(tables);
    } else {
      loops = new ScalarNtt(tables);
    }
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
    return loops instanceof ScalarNtt ? NttImplementation.SCALAR : NttImplementation.VECTOR;
  }

  /** SIMD lanes the butterflies run on: 1 for {@code SCALAR}, else 4 (AVX2) or 8 (AVX-512). */
  public int lanes() {
    return loops instanceof ScalarNtt ? 1 : VectorNtt.lanes();
  }

  /**
   * Whether the loops run on FMA lanes of doubles ({@link FmaLanes}: vector, q below 2^50, FMA in
   * hardware); other code on the same prime (the hosted backend's element-wise loops) follows it.
   */
  public boolean onFmaLanes() {
    return loops instanceof FmaNtt;
  }

  /**
   * How the loops multiply modulo q, for reports: {@code "fma-double"} ({@link #onFmaLanes()}) or
   * {@code "int64"} (64-bit words: scalar, or vector otherwise).
   */
  public String arithmetic() {
    return onFmaLanes() ? "fma-double" : "int64";
  }

  /**
   * This transform's loops as JSON fields for benchmark lines, names stable (issue 38): {@code
   * "implementation":"vector","arithmetic":"fma-double","lanes":4}.
   */
  public String laneFields() {
    return "\"implementation\":\""
        + implementation().name().toLowerCase(java.util.Locale.ROOT)
        + "\",\"arithmetic\":\""
        + arithmetic()
        + "\",\"lanes\":"
        + lanes();
  }

  /** The ring degree {@code n}. */
  public int degree() {
    return tables.degree();
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
    return tables.forward().clone();
  }

  /** Shoup companions of {@link #forwardTwiddles()}, index for index. */
  public long[] forwardTwiddlesShoup() {
    return tables.forwardShoup().clone();
  }

  /** A copy of the inverse twiddle table: index {@code k} holds the inverse of the forward one. */
  public long[] inverseTwiddles() {
    return tables.inverse().clone();
  }

  /** Shoup companions of {@link #inverseTwiddles()}, index for index. */
  public long[] inverseTwiddlesShoup() {
    return tables.inverseShoup().clone();
  }

  /** {@code n^-1 mod q}, the inverse transform's final factor. Range: [1, q). */
  public long inverseDegree() {
    return tables.inverseDegree();
  }

  /**
   * Forward transform, leaving values partly reduced.
   *
   * <p>Range: input in [0, 4q); output in [0, 4q), congruent to the exact transform.
   */
  public void forwardLazyInPlace(long[] a) {
    checkLength(a);
    loops.forwardLazy(a);
  }

  /** Forward transform. Range: input in [0, 4q); output in [0, q). */
  public void forwardInPlace(long[] a) {
    checkLength(a);
    loops.forward(a);
  }

  /**
   * Inverse transform including the factor {@code n^-1}, leaving values partly reduced.
   *
   * <p>Range: input in [0, 2q); output in [0, 2q), congruent to the exact inverse.
   */
  public void inverseLazyInPlace(long[] a) {
    checkLength(a);
    loops.inverseLazy(a);
  }

  /** Inverse transform including {@code n^-1}. Range: input in [0, 2q); output in [0, q). */
  public void inverseInPlace(long[] a) {
    checkLength(a);
    loops.inverse(a);
  }

  private void checkLength(long[] a) {
    if (a.length != tables.degree()) {
      throw new IllegalArgumentException(
          "polynomial has " + a.length + " coefficients, the ring has " + tables.degree());
    }
  }
}
