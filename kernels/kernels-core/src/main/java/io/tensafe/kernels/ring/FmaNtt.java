package io.tensafe.kernels.ring;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The negacyclic NTT on SIMD lanes of doubles ({@link FmaLanes}), for primes below {@code 2^50}:
 * the same radix-2 butterflies, twiddles and order as {@link ScalarNtt}, with each product {@code
 * y·w mod q} computed by fused multiply-adds instead of 64-bit integer products, which AVX2 lacks.
 *
 * <p>Between the first and last pass the array holds the bit patterns of doubles: integers in a
 * signed range. The passes track a bound on them in units of {@code q} and reduce a butterfly's
 * unmultiplied operand only when the next stage's bound would pass {@code 4q}, the most {@link
 * FmaLanes#mulMod} takes: in the forward transform one stage in four, in the inverse one in two.
 * Every output is fully reduced: the lazy transforms give words in [0, q), inside their contracts'
 * ranges and congruent to {@link ScalarNtt}'s lazy words (the reduced ones are equal).
 *
 * <p>Invariants: {@code q < 2^50}; the ring degree is at least {@code 2L}. Only {@link
 * NegacyclicNtt} loads this class, and only when the {@code jdk.incubator.vector} module is in the
 * boot layer. Instances are immutable and thread-safe.
 */
final class FmaNtt implements NttLoops {
  private static final VectorSpecies<Long> WORDS = LaneMath.SPECIES;
  private static final VectorSpecies<Double> DOUBLES = FmaLanes.SPECIES;

  /** The largest bound, in units of q, that a stage's inputs may have ({@link FmaLanes#mulMod}). */
  private static final double MAX_BOUND = 4;

  private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
  private static final MethodHandle FORWARD_WIDE =
      InliningBarriers.find(
          LOOKUP, FmaNtt.class, "forwardWide", int.class, boolean.class, boolean.class);
  private static final MethodHandle FORWARD_TAIL =
      InliningBarriers.find(
          LOOKUP, FmaNtt.class, "forwardTail", Tail.class, boolean.class, boolean.class);
  private static final MethodHandle INVERSE_TAIL =
      InliningBarriers.find(
          LOOKUP, FmaNtt.class, "inverseTail", Tail.class, boolean.class, boolean.class);
  private static final MethodHandle INVERSE_WIDE =
      InliningBarriers.find(LOOKUP, FmaNtt.class, "inverseWide", int.class, boolean.class);
  private static final MethodHandle INVERSE_LAST =
      InliningBarriers.find(LOOKUP, FmaNtt.class, "inverseLastToWords");
  // Per-instance copies, which C2 does not inline through (see InliningBarriers).
  private final MethodHandle forwardWidePass = FORWARD_WIDE;
  private final MethodHandle forwardTailPass = FORWARD_TAIL;
  private final MethodHandle inverseTailPass = INVERSE_TAIL;
  private final MethodHandle inverseWidePass = INVERSE_WIDE;
  private final MethodHandle inverseLastPass = INVERSE_LAST;

  private final int degree;
  private final double q;
  private final double qInverse;
  // Signed twiddles in [-q/2, q/2] and their quotients w/q, indexed as NttTables' arrays.
  private final double[] forward;
  private final double[] forwardQuotient;
  private final double[] inverse;
  private final double[] inverseQuotient;
  private final double inverseDegree;
  private final double inverseDegreeQuotient;
  // The inverse's last twiddle times n^-1, signed, and its quotient: that stage also scales.
  private final double lastScaled;
  private final double lastScaledQuotient;
  private final Tail[] forwardTail;
  private final Tail[] inverseTail;

  /** One stage with {@code t < L}: its permutes and its twiddles laid out lane by lane. */
  private record Tail(
      TailPermutes permutes, double[] twiddles, double[] negatedTwiddles, double[] quotients) {}

  private static Tail tail(TailPermutes permutes, double[] twiddles, double[] quotients) {
    double[] laid = permutes.lay(twiddles);
    double[] negated = new double[laid.length];
    for (int i = 0; i < laid.length; i++) {
      negated[i] = -laid[i];
    }
    return new Tail(permutes, laid, negated, permutes.lay(quotients));
  }

  /** Whether this class computes exactly modulo {@code q}: {@code q < 2^50}. */
  static boolean supports(long q) {
    return 64 - Long.numberOfLeadingZeros(q) <= FmaLanes.MAX_BITS;
  }

  FmaNtt(NttTables tables) {
    if (!supports(tables.q())) {
      throw new IllegalArgumentException("the FMA NTT needs q < 2^50, was " + tables.q());
    }
    if (FmaLanes.lanes() < 2) {
      // With one lane there are no tail stages, and the passes that convert words are tail ones.
      throw new IllegalArgumentException("the FMA NTT needs at least two lanes");
    }
    if (tables.degree() < 2 * FmaLanes.lanes()) {
      throw new IllegalArgumentException(
          "the vector NTT needs a ring degree of at least " + 2 * FmaLanes.lanes());
    }
    long modulus = tables.q();
    this.degree = tables.degree();
    this.q = modulus;
    this.qInverse = 1.0 / modulus;
    this.forward = FmaLanes.signed(tables.forward(), modulus);
    this.forwardQuotient = FmaLanes.quotients(forward, modulus);
    this.inverse = FmaLanes.signed(tables.inverse(), modulus);
    this.inverseQuotient = FmaLanes.quotients(inverse, modulus);
    this.inverseDegree = FmaLanes.signed(tables.inverseDegree(), modulus);
    this.inverseDegreeQuotient = inverseDegree / modulus;
    long scaled =
        java.math.BigInteger.valueOf(tables.inverse()[1])
            .multiply(java.math.BigInteger.valueOf(tables.inverseDegree()))
            .mod(java.math.BigInteger.valueOf(modulus))
            .longValue();
    this.lastScaled = FmaLanes.signed(scaled, modulus);
    this.lastScaledQuotient = lastScaled / modulus;
    int tailStages = Integer.numberOfTrailingZeros(FmaLanes.lanes());
    forwardTail = new Tail[tailStages];
    inverseTail = new Tail[tailStages];
    for (int logT = 0; logT < tailStages; logT++) {
      TailPermutes permutes = TailPermutes.of(1 << logT, degree);
      forwardTail[logT] = tail(permutes, forward, forwardQuotient);
      inverseTail[logT] = tail(permutes, inverse, inverseQuotient);
    }
  }

  /** Output in [0, q): within the lazy contract's [0, 4q). */
  @Override
  public void forwardLazy(long[] a) {
    forward(a);
  }

  /**
   * Range: input in [0, 4q); output in [0, q). The first stage reads the words, the last writes
   * them: no pass of its own converts.
   */
  @Override
  public void forward(long[] a) {
    double bound = MAX_BOUND; // in units of q: words in [0, 4q)
    double reducedBound = 0.5 + 1 / q; // FmaLanes.reduce leaves at most q/2 + 1
    int lanes = FmaLanes.lanes();
    for (int t = degree >>> 1; t >= 1; t >>>= 1) {
      // A butterfly's outputs are x ± r with |r| ≤ 3q/4; x is reduced when they would pass 4q.
      boolean reduceX = bound + 0.75 > MAX_BOUND;
      bound = (reduceX ? reducedBound : bound) + 0.75;
      try {
        if (t >= lanes) { // the first stage always, as degree ≥ 2L
          forwardWidePass.invokeExact(this, a, t, reduceX, t == degree >>> 1);
        } else { // the last stage always, as L ≥ 2
          forwardTailPass.invokeExact(
              this, a, forwardTail[Integer.numberOfTrailingZeros(t)], reduceX, t == 1);
        }
      } catch (Throwable e) {
        throw InliningBarriers.failed(e);
      }
    }
  }

  /** Output in [0, q): within the lazy contract's [0, 2q). */
  @Override
  public void inverseLazy(long[] a) {
    inverse(a);
  }

  /**
   * Range: input in [0, 2q); output in [0, q). The first stage reads the words; the last scales by
   * n^-1 and writes them.
   */
  @Override
  public void inverse(long[] a) {
    double bound = 2; // in units of q: words in [0, 2q)
    double reducedBound = 0.5 + 1 / q; // FmaLanes.reduce leaves at most q/2 + 1
    int lanes = FmaLanes.lanes();
    for (int t = 1; t < degree >>> 1; t <<= 1) {
      // Outputs: x + y (the bound doubles) and (x − y)·w (|.| ≤ 3q/4, taking |x − y| ≤ 4q):
      // the sum is reduced when the next stage's x − y could pass 4q.
      boolean reduceSum = 2 * (2 * bound) > MAX_BOUND;
      bound = Math.max(reduceSum ? reducedBound : 2 * bound, 0.75);
      try {
        if (t < lanes) { // the first stage always, as L ≥ 2
          inverseTailPass.invokeExact(
              this, a, inverseTail[Integer.numberOfTrailingZeros(t)], reduceSum, t == 1);
        } else {
          inverseWidePass.invokeExact(this, a, t, reduceSum);
        }
      } catch (Throwable e) {
        throw InliningBarriers.failed(e);
      }
    }
    // The last stage (t = n/2 ≥ L) takes |x ± y| ≤ 2·bound ≤ 4q, as mulMod needs.
    run(inverseLastPass, a);
  }

  private void run(MethodHandle pass, long[] a) {
    try {
      pass.invokeExact(this, a);
    } catch (Throwable e) {
      throw InliningBarriers.failed(e);
    }
  }

  private static DoubleVector load(long[] a, int j) {
    return LongVector.fromArray(WORDS, a, j).reinterpretAsDoubles();
  }

  private static DoubleVector loadWords(long[] a, int j) {
    return FmaLanes.fromWords(LongVector.fromArray(WORDS, a, j));
  }

  /** Doubles with |x| < 2^53 as words in [0, q), lane for lane. */
  private static LongVector words(
      DoubleVector x, DoubleVector q, DoubleVector qInverse, DoubleVector rounding) {
    return FmaLanes.toWords(FmaLanes.nonNegative(FmaLanes.reduce(x, q, qInverse, rounding), q));
  }

  private static void store(DoubleVector x, long[] a, int j) {
    x.reinterpretAsLongs().intoArray(a, j);
  }

  /**
   * One forward stage with span {@code t ≥ L}: whole vectors at {@code j} and {@code j + t}; the
   * first stage ({@code fromWords}) reads words in [0, 4q) rather than doubles.
   */
  private void forwardWide(long[] a, int t, boolean reduceX, boolean fromWords) {
    final int lanes = FmaLanes.lanes();
    final DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    final DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    final DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    final int m = degree / (2 * t);
    for (int i = 0; i < m; i++) {
      DoubleVector w = DoubleVector.broadcast(DOUBLES, forward[m + i]);
      DoubleVector negatedW = DoubleVector.broadcast(DOUBLES, -forward[m + i]);
      DoubleVector wQuotient = DoubleVector.broadcast(DOUBLES, forwardQuotient[m + i]);
      final int start = 2 * i * t;
      final int end = start + t;
      for (int j = start; j < end; j += lanes) {
        DoubleVector x = fromWords ? loadWords(a, j) : load(a, j);
        DoubleVector y = fromWords ? loadWords(a, j + t) : load(a, j + t);
        if (reduceX) {
          x = FmaLanes.reduce(x, vq, vInverse, rounding);
        }
        DoubleVector r = FmaLanes.mulMod(y, w, negatedW, wQuotient, vq, rounding);
        store(x.add(r), a, j);
        store(x.sub(r), a, j + t);
      }
    }
  }

  /**
   * One forward stage with span {@code t < L}, on chunks of two vectors; the last stage ({@code
   * toWords}) writes words in [0, q).
   */
  private void forwardTail(long[] a, Tail stage, boolean reduceX, boolean toWords) {
    final int lanes = FmaLanes.lanes();
    final DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    final DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    final DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    final TailPermutes permutes = stage.permutes();
    for (int j = 0, c = 0; j < degree; j += 2 * lanes, c += lanes) {
      LongVector low = LongVector.fromArray(WORDS, a, j);
      LongVector high = LongVector.fromArray(WORDS, a, j + lanes);
      DoubleVector x = permutes.gatherX().selectFrom(low, high).reinterpretAsDoubles();
      if (reduceX) {
        x = FmaLanes.reduce(x, vq, vInverse, rounding);
      }
      DoubleVector y = permutes.gatherY().selectFrom(low, high).reinterpretAsDoubles();
      DoubleVector w = DoubleVector.fromArray(DOUBLES, stage.twiddles(), c);
      DoubleVector wQuotient = DoubleVector.fromArray(DOUBLES, stage.quotients(), c);
      DoubleVector negatedW = DoubleVector.fromArray(DOUBLES, stage.negatedTwiddles(), c);
      DoubleVector r = FmaLanes.mulMod(y, w, negatedW, wQuotient, vq, rounding);
      LongVector sum =
          toWords ? words(x.add(r), vq, vInverse, rounding) : x.add(r).reinterpretAsLongs();
      LongVector difference =
          toWords ? words(x.sub(r), vq, vInverse, rounding) : x.sub(r).reinterpretAsLongs();
      permutes.scatterLow().selectFrom(sum, difference).intoArray(a, j);
      permutes.scatterHigh().selectFrom(sum, difference).intoArray(a, j + lanes);
    }
  }

  /**
   * One inverse stage with span {@code t < L}, on chunks of two vectors; the first stage ({@code
   * fromWords}) reads words in [0, 2q) rather than doubles.
   */
  private void inverseTail(long[] a, Tail stage, boolean reduceSum, boolean fromWords) {
    final int lanes = FmaLanes.lanes();
    final DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    final DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    final DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    final TailPermutes permutes = stage.permutes();
    for (int j = 0, c = 0; j < degree; j += 2 * lanes, c += lanes) {
      LongVector low = LongVector.fromArray(WORDS, a, j);
      LongVector high = LongVector.fromArray(WORDS, a, j + lanes);
      LongVector xBits = permutes.gatherX().selectFrom(low, high);
      LongVector yBits = permutes.gatherY().selectFrom(low, high);
      DoubleVector x = fromWords ? FmaLanes.fromWords(xBits) : xBits.reinterpretAsDoubles();
      DoubleVector y = fromWords ? FmaLanes.fromWords(yBits) : yBits.reinterpretAsDoubles();
      DoubleVector w = DoubleVector.fromArray(DOUBLES, stage.twiddles(), c);
      DoubleVector wQuotient = DoubleVector.fromArray(DOUBLES, stage.quotients(), c);
      DoubleVector sum = x.add(y);
      if (reduceSum) {
        sum = FmaLanes.reduce(sum, vq, vInverse, rounding);
      }
      DoubleVector negatedW = DoubleVector.fromArray(DOUBLES, stage.negatedTwiddles(), c);
      DoubleVector product = FmaLanes.mulMod(x.sub(y), w, negatedW, wQuotient, vq, rounding);
      LongVector sumWords = sum.reinterpretAsLongs();
      LongVector productWords = product.reinterpretAsLongs();
      permutes.scatterLow().selectFrom(sumWords, productWords).intoArray(a, j);
      permutes.scatterHigh().selectFrom(sumWords, productWords).intoArray(a, j + lanes);
    }
  }

  /** One inverse stage with span {@code t ≥ L}: whole vectors at {@code j} and {@code j + t}. */
  private void inverseWide(long[] a, int t, boolean reduceSum) {
    final int lanes = FmaLanes.lanes();
    final DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    final DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    final DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    final int m = degree / (2 * t);
    for (int i = 0; i < m; i++) {
      DoubleVector w = DoubleVector.broadcast(DOUBLES, inverse[m + i]);
      DoubleVector negatedW = DoubleVector.broadcast(DOUBLES, -inverse[m + i]);
      DoubleVector wQuotient = DoubleVector.broadcast(DOUBLES, inverseQuotient[m + i]);
      final int start = 2 * i * t;
      final int end = start + t;
      for (int j = start; j < end; j += lanes) {
        DoubleVector x = load(a, j);
        DoubleVector y = load(a, j + t);
        DoubleVector sum = x.add(y);
        if (reduceSum) {
          sum = FmaLanes.reduce(sum, vq, vInverse, rounding);
        }
        store(sum, a, j);
        store(FmaLanes.mulMod(x.sub(y), w, negatedW, wQuotient, vq, rounding), a, j + t);
      }
    }
  }

  /**
   * The last inverse stage ({@code t = n/2}, one twiddle) with the factor n^-1 folded in: {@code (x
   * + y)·n^-1} and {@code (x − y)·(w·n^-1)}, written as words in [0, q).
   */
  private void inverseLastToWords(long[] a) {
    final int lanes = FmaLanes.lanes();
    final int t = degree >>> 1;
    DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    DoubleVector scale = DoubleVector.broadcast(DOUBLES, inverseDegree);
    DoubleVector negatedScale = DoubleVector.broadcast(DOUBLES, -inverseDegree);
    DoubleVector scaleQuotient = DoubleVector.broadcast(DOUBLES, inverseDegreeQuotient);
    DoubleVector w = DoubleVector.broadcast(DOUBLES, lastScaled);
    DoubleVector negatedW = DoubleVector.broadcast(DOUBLES, -lastScaled);
    DoubleVector wQuotient = DoubleVector.broadcast(DOUBLES, lastScaledQuotient);
    for (int j = 0; j < t; j += lanes) {
      DoubleVector x = load(a, j);
      DoubleVector y = load(a, j + t);
      DoubleVector sum =
          FmaLanes.mulMod(x.add(y), scale, negatedScale, scaleQuotient, vq, rounding);
      DoubleVector difference = FmaLanes.mulMod(x.sub(y), w, negatedW, wQuotient, vq, rounding);
      FmaLanes.toWords(FmaLanes.nonNegative(sum, vq)).intoArray(a, j);
      FmaLanes.toWords(FmaLanes.nonNegative(difference, vq)).intoArray(a, j + t);
    }
  }
}
