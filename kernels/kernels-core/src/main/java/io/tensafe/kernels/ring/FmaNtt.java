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
  private static final MethodHandle FROM_WORDS = NttPasses.find(LOOKUP, FmaNtt.class, "fromWords");
  private static final MethodHandle FORWARD_WIDE =
      NttPasses.find(LOOKUP, FmaNtt.class, "forwardWide", int.class, boolean.class);
  private static final MethodHandle FORWARD_TAIL =
      NttPasses.find(LOOKUP, FmaNtt.class, "forwardTail", Tail.class, boolean.class);
  private static final MethodHandle FORWARD_WORDS =
      NttPasses.find(LOOKUP, FmaNtt.class, "forwardToWords");
  private static final MethodHandle INVERSE_TAIL =
      NttPasses.find(LOOKUP, FmaNtt.class, "inverseTail", Tail.class, boolean.class);
  private static final MethodHandle INVERSE_WIDE =
      NttPasses.find(LOOKUP, FmaNtt.class, "inverseWide", int.class, boolean.class);
  private static final MethodHandle INVERSE_WORDS =
      NttPasses.find(LOOKUP, FmaNtt.class, "inverseToWords");
  // Per-instance copies, which C2 does not inline through (see NttPasses).
  private final MethodHandle fromWordsPass = FROM_WORDS;
  private final MethodHandle forwardWidePass = FORWARD_WIDE;
  private final MethodHandle forwardTailPass = FORWARD_TAIL;
  private final MethodHandle forwardWordsPass = FORWARD_WORDS;
  private final MethodHandle inverseTailPass = INVERSE_TAIL;
  private final MethodHandle inverseWidePass = INVERSE_WIDE;
  private final MethodHandle inverseWordsPass = INVERSE_WORDS;

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
  private final Tail[] forwardTail;
  private final Tail[] inverseTail;

  /** One stage with {@code t < L}: its permutes and its twiddles laid out lane by lane. */
  private record Tail(TailPermutes permutes, double[] twiddles, double[] quotients) {}

  /** Whether this class computes exactly modulo {@code q}: {@code q < 2^50}. */
  static boolean supports(long q) {
    return 64 - Long.numberOfLeadingZeros(q) <= FmaLanes.MAX_BITS;
  }

  FmaNtt(NttTables tables) {
    if (!supports(tables.q())) {
      throw new IllegalArgumentException("the FMA NTT needs q < 2^50, was " + tables.q());
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
    int tailStages = Integer.numberOfTrailingZeros(FmaLanes.lanes());
    forwardTail = new Tail[tailStages];
    inverseTail = new Tail[tailStages];
    for (int logT = 0; logT < tailStages; logT++) {
      TailPermutes permutes = TailPermutes.of(1 << logT, degree);
      forwardTail[logT] = new Tail(permutes, permutes.lay(forward), permutes.lay(forwardQuotient));
      inverseTail[logT] = new Tail(permutes, permutes.lay(inverse), permutes.lay(inverseQuotient));
    }
  }

  /** Output in [0, q): within the lazy contract's [0, 4q). */
  @Override
  public void forwardLazy(long[] a) {
    forward(a);
  }

  /** Range: input in [0, 4q); output in [0, q). */
  @Override
  public void forward(long[] a) {
    run(fromWordsPass, a);
    double bound = 0.5 + 1e-9; // after fromWords, in units of q
    int lanes = FmaLanes.lanes();
    for (int t = degree >>> 1; t >= 1; t >>>= 1) {
      // A butterfly's outputs are x ± r with |r| ≤ 3q/4; x is reduced when they would pass 4q.
      boolean reduceX = bound + 0.75 > MAX_BOUND;
      bound = (reduceX ? 0.5 + 1e-9 : bound) + 0.75;
      try {
        if (t >= lanes) {
          forwardWidePass.invokeExact(this, a, t, reduceX);
        } else {
          forwardTailPass.invokeExact(
              this, a, forwardTail[Integer.numberOfTrailingZeros(t)], reduceX);
        }
      } catch (Throwable e) {
        throw NttPasses.failed(e);
      }
    }
    run(forwardWordsPass, a);
  }

  /** Output in [0, q): within the lazy contract's [0, 2q). */
  @Override
  public void inverseLazy(long[] a) {
    inverse(a);
  }

  /** Range: input in [0, 2q); output in [0, q). */
  @Override
  public void inverse(long[] a) {
    run(fromWordsPass, a);
    double bound = 0.5 + 1e-9; // after fromWords, in units of q
    int lanes = FmaLanes.lanes();
    for (int t = 1; t < degree; t <<= 1) {
      // Outputs: x + y (the bound doubles) and (x − y)·w (|.| ≤ 3q/4, taking |x − y| ≤ 4q):
      // the sum is reduced when the next stage's x − y could pass 4q.
      boolean reduceSum = 2 * (2 * bound) > MAX_BOUND;
      bound = Math.max(reduceSum ? 0.5 + 1e-9 : 2 * bound, 0.75);
      try {
        if (t < lanes) {
          inverseTailPass.invokeExact(
              this, a, inverseTail[Integer.numberOfTrailingZeros(t)], reduceSum);
        } else {
          inverseWidePass.invokeExact(this, a, t, reduceSum);
        }
      } catch (Throwable e) {
        throw NttPasses.failed(e);
      }
    }
    run(inverseWordsPass, a);
  }

  private void run(MethodHandle pass, long[] a) {
    try {
      pass.invokeExact(this, a);
    } catch (Throwable e) {
      throw NttPasses.failed(e);
    }
  }

  private static DoubleVector load(long[] a, int j) {
    return LongVector.fromArray(WORDS, a, j).reinterpretAsDoubles();
  }

  private static void store(DoubleVector x, long[] a, int j) {
    x.reinterpretAsLongs().intoArray(a, j);
  }

  /** Words in [0, 4q) to doubles in [-q/2, q/2] (their bits, in place). */
  private void fromWords(long[] a) {
    DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    for (int j = 0; j < degree; j += FmaLanes.lanes()) {
      DoubleVector x = FmaLanes.fromWords(LongVector.fromArray(WORDS, a, j));
      store(FmaLanes.reduce(x, vq, vInverse, rounding), a, j);
    }
  }

  /** One forward stage with span {@code t ≥ L}: whole vectors at {@code j} and {@code j + t}. */
  private void forwardWide(long[] a, int t, boolean reduceX) {
    final int lanes = FmaLanes.lanes();
    final DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    final DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    final DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    final int m = degree / (2 * t);
    for (int i = 0; i < m; i++) {
      DoubleVector w = DoubleVector.broadcast(DOUBLES, forward[m + i]);
      DoubleVector wQuotient = DoubleVector.broadcast(DOUBLES, forwardQuotient[m + i]);
      final int start = 2 * i * t;
      final int end = start + t;
      for (int j = start; j < end; j += lanes) {
        DoubleVector x = load(a, j);
        if (reduceX) {
          x = FmaLanes.reduce(x, vq, vInverse, rounding);
        }
        DoubleVector r = FmaLanes.mulMod(load(a, j + t), w, wQuotient, vq, rounding);
        store(x.add(r), a, j);
        store(x.sub(r), a, j + t);
      }
    }
  }

  /** One forward stage with span {@code t < L}, on chunks of two vectors. */
  private void forwardTail(long[] a, Tail stage, boolean reduceX) {
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
      DoubleVector r = FmaLanes.mulMod(y, w, wQuotient, vq, rounding);
      LongVector sum = x.add(r).reinterpretAsLongs();
      LongVector difference = x.sub(r).reinterpretAsLongs();
      permutes.scatterLow().selectFrom(sum, difference).intoArray(a, j);
      permutes.scatterHigh().selectFrom(sum, difference).intoArray(a, j + lanes);
    }
  }

  /** Doubles with |x| ≤ 4q to words in [0, q). */
  private void forwardToWords(long[] a) {
    DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    for (int j = 0; j < degree; j += FmaLanes.lanes()) {
      DoubleVector x = FmaLanes.reduce(load(a, j), vq, vInverse, rounding);
      FmaLanes.toWords(FmaLanes.nonNegative(x, vq)).intoArray(a, j);
    }
  }

  /** One inverse stage with span {@code t < L}, on chunks of two vectors. */
  private void inverseTail(long[] a, Tail stage, boolean reduceSum) {
    final int lanes = FmaLanes.lanes();
    final DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    final DoubleVector vInverse = DoubleVector.broadcast(DOUBLES, qInverse);
    final DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    final TailPermutes permutes = stage.permutes();
    for (int j = 0, c = 0; j < degree; j += 2 * lanes, c += lanes) {
      LongVector low = LongVector.fromArray(WORDS, a, j);
      LongVector high = LongVector.fromArray(WORDS, a, j + lanes);
      DoubleVector x = permutes.gatherX().selectFrom(low, high).reinterpretAsDoubles();
      DoubleVector y = permutes.gatherY().selectFrom(low, high).reinterpretAsDoubles();
      DoubleVector w = DoubleVector.fromArray(DOUBLES, stage.twiddles(), c);
      DoubleVector wQuotient = DoubleVector.fromArray(DOUBLES, stage.quotients(), c);
      DoubleVector sum = x.add(y);
      if (reduceSum) {
        sum = FmaLanes.reduce(sum, vq, vInverse, rounding);
      }
      DoubleVector product = FmaLanes.mulMod(x.sub(y), w, wQuotient, vq, rounding);
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
        store(FmaLanes.mulMod(x.sub(y), w, wQuotient, vq, rounding), a, j + t);
      }
    }
  }

  /** {@code x·n^-1} for doubles with |x| ≤ 4q, to words in [0, q). */
  private void inverseToWords(long[] a) {
    DoubleVector vq = DoubleVector.broadcast(DOUBLES, q);
    DoubleVector rounding = DoubleVector.broadcast(DOUBLES, FmaLanes.ROUNDING);
    DoubleVector scale = DoubleVector.broadcast(DOUBLES, inverseDegree);
    DoubleVector scaleQuotient = DoubleVector.broadcast(DOUBLES, inverseDegreeQuotient);
    for (int j = 0; j < degree; j += FmaLanes.lanes()) {
      DoubleVector x = FmaLanes.mulMod(load(a, j), scale, scaleQuotient, vq, rounding);
      FmaLanes.toWords(FmaLanes.nonNegative(x, vq)).intoArray(a, j);
    }
  }
}
