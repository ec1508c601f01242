package io.tensafe.node.runtime;

import static io.tensafe.node.runtime.Bf16VectorLoops.FLOATS;

import jdk.incubator.vector.FloatVector;

/**
 * The machine's F32 fused multiply-add rate with the Vector API at the preferred width, operands in
 * registers (no memory traffic): the ceiling of any product this package's loops compute, since
 * they widen BF16 to F32 and multiply-add in F32. Only loaded with the {@code jdk.incubator.vector}
 * module (see {@link Bf16Loops}).
 */
final class FmaPeak {
  /** Multiply-adds one pass of the inner loop does per lane: 16 independent chains. */
  private static final int CHAINS = 16;

  private FmaPeak() {}

  /**
   * Multiply-adds per second, in 10⁹, of {@code threads} threads each running independent FMA
   * chains for about {@code nanos} nanoseconds; best of three passes.
   */
  static double gmacPerS(int threads, long nanos) {
    double best = 0;
    for (int pass = 0; pass < 3; pass++) {
      long[] done = new long[threads];
      float[] sink = new float[threads];
      Thread[] runners = new Thread[threads];
      long start = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        int slot = t;
        runners[t] =
            new Thread(
                () -> {
                  long iterations = 0;
                  float s = 0;
                  while (System.nanoTime() - start < nanos) {
                    s += chains(1 << 16);
                    iterations += 1 << 16;
                  }
                  done[slot] = iterations;
                  sink[slot] = s;
                });
        runners[t].start();
      }
      for (Thread r : runners) {
        try {
          r.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while measuring the FMA rate", e);
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long total = 0;
      for (long d : done) {
        total += d;
      }
      best = Math.max(best, total * (double) CHAINS * FLOATS.length() / seconds / 1e9);
    }
    return best;
  }

  /** {@code iterations} steps of {@link #CHAINS} independent FMAs; the sum keeps them live. */
  private static float chains(int iterations) {
    FloatVector m = FloatVector.broadcast(FLOATS, 0.999f);
    FloatVector a = FloatVector.broadcast(FLOATS, 1e-3f);
    FloatVector s0 = FloatVector.zero(FLOATS);
    FloatVector s1 = s0;
    FloatVector s2 = s0;
    FloatVector s3 = s0;
    FloatVector s4 = s0;
    FloatVector s5 = s0;
    FloatVector s6 = s0;
    FloatVector s7 = s0;
    FloatVector s8 = s0;
    FloatVector s9 = s0;
    FloatVector s10 = s0;
    FloatVector s11 = s0;
    FloatVector s12 = s0;
    FloatVector s13 = s0;
    FloatVector s14 = s0;
    FloatVector s15 = s0;
    for (int i = 0; i < iterations; i++) {
      s0 = s0.fma(m, a);
      s1 = s1.fma(m, a);
      s2 = s2.fma(m, a);
      s3 = s3.fma(m, a);
      s4 = s4.fma(m, a);
      s5 = s5.fma(m, a);
      s6 = s6.fma(m, a);
      s7 = s7.fma(m, a);
      s8 = s8.fma(m, a);
      s9 = s9.fma(m, a);
      s10 = s10.fma(m, a);
      s11 = s11.fma(m, a);
      s12 = s12.fma(m, a);
      s13 = s13.fma(m, a);
      s14 = s14.fma(m, a);
      s15 = s15.fma(m, a);
    }
    return s0.add(s1)
        .add(s2)
        .add(s3)
        .add(s4)
        .add(s5)
        .add(s6)
        .add(s7)
        .add(s8)
        .add(s9)
        .add(s10)
        .add(s11)
        .add(s12)
        .add(s13)
        .add(s14)
        .add(s15)
        .reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
  }
}
