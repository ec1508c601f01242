package io.tensafe.kernels.ring;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The negacyclic NTT's butterflies on SIMD lanes (the JDK's incubating Vector API), word for word
 * the same lazy results as {@link ScalarNtt}: every element goes through the same radix-2
 * butterflies, with the same twiddles and the same Shoup quotients.
 *
 * <p>The API has no 64×64→128-bit multiply, so {@link LaneMath#multiplyHigh} builds the exact high
 * word from four 32×32→64-bit lane products. Stages whose butterfly span {@code t} is at least the
 * lane count {@code L} read whole vectors at {@code j} and {@code j + t} with one broadcast twiddle
 * per group. The last {@code log2 L} stages ({@code t < L}) gather each chunk of {@code 2L} words
 * into the butterflies' two operand vectors with two-vector permutes, multiply by a per-lane
 * twiddle table laid out for that gather, and scatter back.
 *
 * <p>Invariants: as {@link NegacyclicNtt} ({@code 4q < 2^62}); the ring degree is at least {@code
 * 2L}. Only {@link NegacyclicNtt} loads this class, and only when the {@code jdk.incubator.vector}
 * module is in the boot layer. Instances are immutable and thread-safe.
 */
final class VectorNtt implements NttLoops {
  private static final VectorSpecies<Long> SPECIES = LaneMath.SPECIES;

  private final int degree;
  private final long q;
  private final long[] forward;
  private final long[] forwardShoup;
  private final long[] inverse;
  private final long[] inverseShoup;
  private final long inverseDegree;
  private final long inverseDegreeShoup;
  private final Tail[] forwardTail;
  private final Tail[] inverseTail;

  private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
  // Inlining barriers, see InliningBarriers. Looked up once; each instance keeps its own copies in
  // instance fields, which C2 does not treat as constants (a static final would be inlined).
  private static final MethodHandle FORWARD_WIDE =
      InliningBarriers.find(LOOKUP, VectorNtt.class, "forwardWideStages");
  private static final MethodHandle FORWARD_TAIL =
      InliningBarriers.find(LOOKUP, VectorNtt.class, "forwardTailStage", Tail.class);
  private static final MethodHandle INVERSE_TAIL =
      InliningBarriers.find(LOOKUP, VectorNtt.class, "inverseTailStage", Tail.class);
  private static final MethodHandle INVERSE_WIDE =
      InliningBarriers.find(LOOKUP, VectorNtt.class, "inverseWideStages");
  private static final MethodHandle SCALE =
      InliningBarriers.find(LOOKUP, VectorNtt.class, "scaleByInverseDegree");
  private static final MethodHandle REDUCE_FROM_FOUR_Q =
      InliningBarriers.find(LOOKUP, VectorNtt.class, "reduceFromFourQ");
  private static final MethodHandle REDUCE_FROM_TWO_Q =
      InliningBarriers.find(LOOKUP, VectorNtt.class, "reduceFromTwoQ");
  private final MethodHandle forwardWidePass = FORWARD_WIDE;
  private final MethodHandle forwardTailPass = FORWARD_TAIL;
  private final MethodHandle inverseTailPass = INVERSE_TAIL;
  private final MethodHandle inverseWidePass = INVERSE_WIDE;
  private final MethodHandle scalePass = SCALE;
  private final MethodHandle reduceFromFourQPass = REDUCE_FROM_FOUR_Q;
  private final MethodHandle reduceFromTwoQPass = REDUCE_FROM_TWO_Q;

  /** One stage with {@code t < L}: its permutes and its twiddles laid out lane by lane. */
  private record Tail(TailPermutes permutes, long[] twiddles, long[] twiddlesShoup) {}

  /** Lanes of one vector of 64-bit words on this machine ({@code L}). */
  static int lanes() {
    return LaneMath.lanes();
  }

  VectorNtt(NttTables tables) {
    if (tables.degree() < 2 * lanes()) {
      throw new IllegalArgumentException(
          "the vector NTT needs a ring degree of at least "
              + 2 * lanes()
              + ", was "
              + tables.degree());
    }
    this.degree = tables.degree();
    this.q = tables.q();
    this.forward = tables.forward();
    this.forwardShoup = tables.forwardShoup();
    this.inverse = tables.inverse();
    this.inverseShoup = tables.inverseShoup();
    this.inverseDegree = tables.inverseDegree();
    this.inverseDegreeShoup = tables.inverseDegreeShoup();
    int tailStages = Integer.numberOfTrailingZeros(lanes());
    forwardTail = new Tail[tailStages];
    inverseTail = new Tail[tailStages];
    for (int logT = 0; logT < tailStages; logT++) {
      forwardTail[logT] = tail(1 << logT, forward, forwardShoup);
      inverseTail[logT] = tail(1 << logT, inverse, inverseShoup);
    }
  }

  private Tail tail(int t, long[] table, long[] tableShoup) {
    TailPermutes permutes = TailPermutes.of(t, degree);
    return new Tail(permutes, permutes.lay(table), permutes.lay(tableShoup));
  }

  /** Runs a pass of type {@code (VectorNtt, long[]) void}. */
  private void run(MethodHandle pass, long[] a) {
    try {
      pass.invokeExact(this, a);
    } catch (Throwable e) {
      throw InliningBarriers.failed(e);
    }
  }

  /** Runs a tail pass of type {@code (VectorNtt, long[], Tail) void}. */
  private void run(MethodHandle pass, long[] a, Tail stage) {
    try {
      pass.invokeExact(this, a, stage);
    } catch (Throwable e) {
      throw InliningBarriers.failed(e);
    }
  }

  /** As {@link NegacyclicNtt#forwardLazyInPlace}. Range: input and output in [0, 4q). */
  @Override
  public void forwardLazy(long[] a) {
    run(forwardWidePass, a);
    for (int logT = forwardTail.length - 1; logT >= 0; logT--) {
      run(forwardTailPass, a, forwardTail[logT]);
    }
  }

  /** Stages with {@code t >= L}: whole vectors at {@code j} and {@code j + t}. */
  private void forwardWideStages(long[] a) {
    final int lanes = lanes();
    final LongVector vq = LongVector.broadcast(SPECIES, q);
    final LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
    for (int m = 1, t = degree >>> 1; t >= lanes; m <<= 1, t >>>= 1) {
      for (int i = 0; i < m; i++) {
        LongVector w = LongVector.broadcast(SPECIES, forward[m + i]);
        LongVector wShoup = LongVector.broadcast(SPECIES, forwardShoup[m + i]);
        final int start = 2 * i * t;
        final int end = start + t;
        for (int j = start; j < end; j += lanes) {
          LongVector x = LaneMath.reduceOnce(LongVector.fromArray(SPECIES, a, j), twoQ);
          LongVector product =
              LaneMath.mulShoupLazy(LongVector.fromArray(SPECIES, a, j + t), w, wShoup, vq);
          x.add(product).intoArray(a, j);
          x.sub(product).add(twoQ).intoArray(a, j + t);
        }
      }
    }
  }

  /** One stage with {@code t < L}, on chunks of two vectors. */
  private void forwardTailStage(long[] a, Tail stage) {
    final int lanes = lanes();
    final LongVector vq = LongVector.broadcast(SPECIES, q);
    final LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
    for (int j = 0, c = 0; j < degree; j += 2 * lanes, c += lanes) {
      LongVector low = LongVector.fromArray(SPECIES, a, j);
      LongVector high = LongVector.fromArray(SPECIES, a, j + lanes);
      LongVector x = LaneMath.reduceOnce(stage.permutes().gatherX().selectFrom(low, high), twoQ);
      LongVector y = stage.permutes().gatherY().selectFrom(low, high);
      LongVector w = LongVector.fromArray(SPECIES, stage.twiddles(), c);
      LongVector wShoup = LongVector.fromArray(SPECIES, stage.twiddlesShoup(), c);
      LongVector product = LaneMath.mulShoupLazy(y, w, wShoup, vq);
      LongVector sum = x.add(product);
      LongVector difference = x.sub(product).add(twoQ);
      stage.permutes().scatterLow().selectFrom(sum, difference).intoArray(a, j);
      stage.permutes().scatterHigh().selectFrom(sum, difference).intoArray(a, j + lanes);
    }
  }

  /** As {@link NegacyclicNtt#forwardInPlace}. Range: input in [0, 4q); output in [0, q). */
  @Override
  public void forward(long[] a) {
    forwardLazy(a);
    run(reduceFromFourQPass, a);
  }

  /** As {@link NegacyclicNtt#inverseInPlace}. Range: input in [0, 2q); output in [0, q). */
  @Override
  public void inverse(long[] a) {
    inverseLazy(a);
    run(reduceFromTwoQPass, a);
  }

  /** [0, 4q) to [0, q). */
  private void reduceFromFourQ(long[] a) {
    final LongVector vq = LongVector.broadcast(SPECIES, q);
    final LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
    for (int j = 0; j < degree; j += lanes()) {
      LongVector x = LaneMath.reduceOnce(LongVector.fromArray(SPECIES, a, j), twoQ);
      LaneMath.reduceOnce(x, vq).intoArray(a, j);
    }
  }

  /** [0, 2q) to [0, q). */
  private void reduceFromTwoQ(long[] a) {
    final LongVector vq = LongVector.broadcast(SPECIES, q);
    for (int j = 0; j < degree; j += lanes()) {
      LongVector x = LongVector.fromArray(SPECIES, a, j);
      LaneMath.reduceOnce(x, vq).intoArray(a, j);
    }
  }

  /** As {@link NegacyclicNtt#inverseLazyInPlace}. Range: input and output in [0, 2q). */
  @Override
  public void inverseLazy(long[] a) {
    for (Tail stage : inverseTail) {
      run(inverseTailPass, a, stage);
    }
    run(inverseWidePass, a);
    run(scalePass, a);
  }

  /** One stage with {@code t < L}, on chunks of two vectors. */
  private void inverseTailStage(long[] a, Tail stage) {
    final int lanes = lanes();
    final LongVector vq = LongVector.broadcast(SPECIES, q);
    final LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
    for (int j = 0, c = 0; j < degree; j += 2 * lanes, c += lanes) {
      LongVector low = LongVector.fromArray(SPECIES, a, j);
      LongVector high = LongVector.fromArray(SPECIES, a, j + lanes);
      LongVector x = stage.permutes().gatherX().selectFrom(low, high);
      LongVector y = stage.permutes().gatherY().selectFrom(low, high);
      LongVector w = LongVector.fromArray(SPECIES, stage.twiddles(), c);
      LongVector wShoup = LongVector.fromArray(SPECIES, stage.twiddlesShoup(), c);
      LongVector sum = LaneMath.reduceOnce(x.add(y), twoQ);
      LongVector difference = LaneMath.mulShoupLazy(x.sub(y).add(twoQ), w, wShoup, vq);
      stage.permutes().scatterLow().selectFrom(sum, difference).intoArray(a, j);
      stage.permutes().scatterHigh().selectFrom(sum, difference).intoArray(a, j + lanes);
    }
  }

  /** Stages with {@code t >= L}: whole vectors at {@code j} and {@code j + t}. */
  private void inverseWideStages(long[] a) {
    final int lanes = lanes();
    final LongVector vq = LongVector.broadcast(SPECIES, q);
    final LongVector twoQ = LongVector.broadcast(SPECIES, 2 * q);
    for (int t = lanes, m = degree / (2 * lanes); m >= 1; t <<= 1, m >>>= 1) {
      for (int i = 0; i < m; i++) {
        LongVector w = LongVector.broadcast(SPECIES, inverse[m + i]);
        LongVector wShoup = LongVector.broadcast(SPECIES, inverseShoup[m + i]);
        final int start = 2 * i * t;
        final int end = start + t;
        for (int j = start; j < end; j += lanes) {
          LongVector x = LongVector.fromArray(SPECIES, a, j);
          LongVector y = LongVector.fromArray(SPECIES, a, j + t);
          LaneMath.reduceOnce(x.add(y), twoQ).intoArray(a, j);
          LaneMath.mulShoupLazy(x.sub(y).add(twoQ), w, wShoup, vq).intoArray(a, j + t);
        }
      }
    }
  }

  /** {@code a[j]·n^-1}, lazily: [0, 2^64) to [0, 2q). */
  private void scaleByInverseDegree(long[] a) {
    final int lanes = lanes();
    final LongVector vq = LongVector.broadcast(SPECIES, q);
    LongVector scale = LongVector.broadcast(SPECIES, inverseDegree);
    LongVector scaleShoup = LongVector.broadcast(SPECIES, inverseDegreeShoup);
    for (int j = 0; j < degree; j += lanes) {
      LaneMath.mulShoupLazy(LongVector.fromArray(SPECIES, a, j), scale, scaleShoup, vq)
          .intoArray(a, j);
    }
  }
}
