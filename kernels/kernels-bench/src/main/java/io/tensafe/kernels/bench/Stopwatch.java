package io.tensafe.kernels.bench;

import java.util.Arrays;

/**
 * A small timing harness for the {@code ./tensafe bench} commands: warm up, then time rounds of
 * calls and report the median time per call. JMH ({@code ./tensafe bench jmh}) is the rigorous
 * tool; this one prints a readable number quickly.
 *
 * @param warmupMillis time spent calling before measuring, at least 0
 * @param rounds number of measured rounds, at least 1; the median round is reported
 * @param roundMillis target duration of one measured round, at least 1
 */
public record Stopwatch(long warmupMillis, int rounds, long roundMillis) {

  public Stopwatch {
    if (warmupMillis < 0 || rounds < 1 || roundMillis < 1) {
      throw new IllegalArgumentException("warm-up >= 0 ms, rounds >= 1 and round >= 1 ms required");
    }
  }

  /** Median nanoseconds per call of {@code task}. */
  public double medianNanosPerCall(Runnable task) {
    long warmupEnd = System.nanoTime() + warmupMillis * 1_000_000;
    do {
      task.run();
    } while (System.nanoTime() < warmupEnd);
    // Calls per round from the calls after the warm-up: the first ones run in the interpreter
    // (a vector NTT there takes a third of a second) and would make rounds of one call.
    long calibrationStart = System.nanoTime();
    long calibrationEnd = calibrationStart + Math.max(1, roundMillis / 4) * 1_000_000;
    long calls = 0;
    do {
      task.run();
      calls++;
    } while (System.nanoTime() < calibrationEnd);
    double nanosPerCall = (System.nanoTime() - calibrationStart) / (double) calls;
    long callsPerRound = Math.max(1, (long) (roundMillis * 1e6 / Math.max(1, nanosPerCall)));
    double[] perCall = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long t0 = System.nanoTime();
      for (long i = 0; i < callsPerRound; i++) {
        task.run();
      }
      perCall[r] = (System.nanoTime() - t0) / (double) callsPerRound;
    }
    Arrays.sort(perCall);
    return perCall[rounds / 2];
  }
}
