package io.tensafe.kernels.bench;

import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.NttImplementation;
import io.tensafe.kernels.ring.Primes;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Forward and inverse negacyclic NTT of one RNS limb, single thread, microseconds per limb. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class NttBenchmark {

  @Param({"12", "13", "14", "15", "16"})
  public int logN;

  @Param({"60"})
  public int primeBits;

  /** A {@link NttImplementation} name: both are timed in the same run. */
  @Param({"VECTOR", "SCALAR"})
  public String implementation;

  private NegacyclicNtt ntt;
  private long[] input;
  private long[] work;

  @Setup
  public void setUp() {
    int n = 1 << logN;
    ntt =
        NegacyclicNtt.of(
            Modulus.of(Primes.nttPrimes(primeBits, n, 1).getFirst()),
            n,
            NttImplementation.valueOf(implementation));
    input = new long[n];
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < n; i++) {
      input[i] = random.nextLong(ntt.modulus().value());
    }
    work = input.clone();
  }

  // Both transforms map [0, q) to [0, q), so each call's output is valid input for the next.

  @Benchmark
  public long[] forward() {
    ntt.forwardInPlace(work);
    return work;
  }

  @Benchmark
  public long[] inverse() {
    ntt.inverseInPlace(work);
    return work;
  }
}
