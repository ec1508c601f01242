package io.tensafe.kernels.bench;

import io.tensafe.kernels.ring.CounterSampler;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.Primes;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The randomness every encryption draws, one polynomial of degree N per call, single thread,
 * microseconds per call: a Gaussian error from a seed, a two-limb uniform polynomial from a seed
 * (54-bit primes, as private mode's mask), and a ternary polynomial from the CSPRNG; and the same
 * error and uniform polynomials from the counter-based generator every backend computes alike
 * ({@link CounterSampler}, ChaCha20; {@code counter...}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SamplersBenchmark {

  @Param({"2048", "4096"})
  public int degree;

  private final byte[] seed = new byte[Samplers.SEED_BYTES];
  private List<Modulus> moduli;
  private SecureRandom random;

  @Setup
  public void setUp() {
    moduli = Primes.nttPrimes(54, degree, 2).stream().map(Modulus::of).toList();
    random = new SecureRandom();
  }

  @Benchmark
  public long[] gaussianFromSeed() {
    return Samplers.gaussianFromSeed(degree, seed);
  }

  @Benchmark
  public RnsPoly uniformTwoLimbsFromSeed() {
    return Samplers.uniformFromSeed(seed, 0, moduli, degree);
  }

  @Benchmark
  public long[] counterErrors() {
    return CounterSampler.errors(seed, 7, degree);
  }

  @Benchmark
  public long[][] counterUniformTwoLimbs() {
    long[][] limbs = new long[moduli.size()][degree];
    for (int l = 0; l < limbs.length; l++) {
      CounterSampler.uniform(seed, 7, l, moduli.get(l), limbs[l]);
    }
    return limbs;
  }

  @Benchmark
  public long[] ternary() {
    return Samplers.ternary(degree, random);
  }
}
