package io.tensafe.kernels.bench;

import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.Primes;
import java.math.BigInteger;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Element-wise modular multiply over one RNS limb of {@code 2^logN} words: Barrett (variable
 * operands), Shoup (fixed, precomputed multiplicand, as for NTT twiddles and plaintext weights) and
 * a {@link BigInteger} baseline. Reports nanoseconds per element.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ModularMultiplyBenchmark {
  static final int ELEMENTS_LOG = 12;

  @Param({"30", "50", "60"})
  public int primeBits;

  private Modulus modulus;
  private long[] a;
  private long[] b;
  private long[] bShoup;
  private long[] out;

  @Setup
  public void setUp() {
    int n = 1 << ELEMENTS_LOG;
    modulus = Modulus.of(Primes.nttPrimes(primeBits, n, 1).getFirst());
    SplittableRandom random = new SplittableRandom(42);
    a = new long[n];
    b = new long[n];
    bShoup = new long[n];
    out = new long[n];
    for (int i = 0; i < n; i++) {
      a[i] = random.nextLong(modulus.value());
      b[i] = random.nextLong(modulus.value());
      bShoup[i] = modulus.shoupPrecompute(b[i]);
    }
  }

  @Benchmark
  @OperationsPerInvocation(1 << ELEMENTS_LOG)
  public long[] barrett() {
    for (int i = 0; i < a.length; i++) {
      out[i] = modulus.mul(a[i], b[i]);
    }
    return out;
  }

  @Benchmark
  @OperationsPerInvocation(1 << ELEMENTS_LOG)
  public long[] shoup() {
    for (int i = 0; i < a.length; i++) {
      out[i] = modulus.mulShoup(a[i], b[i], bShoup[i]);
    }
    return out;
  }

  @Benchmark
  @OperationsPerInvocation(1 << ELEMENTS_LOG)
  public long[] bigIntegerBaseline() {
    BigInteger q = BigInteger.valueOf(modulus.value());
    for (int i = 0; i < a.length; i++) {
      out[i] = BigInteger.valueOf(a[i]).multiply(BigInteger.valueOf(b[i])).mod(q).longValue();
    }
    return out;
  }
}
