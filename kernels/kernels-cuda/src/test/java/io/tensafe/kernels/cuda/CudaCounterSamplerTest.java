package io.tensafe.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.tensafe.kernels.ring.CounterSampler;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.Primes;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The GPU's counter-based sampling equals the CPU reference ({@link CounterSampler}) word for word,
 * at the hosted HE-LoRA shape (N = 2^14, two 59-bit limbs) for several tokens. Skipped, with the
 * probe's reason, where no GPU is present.
 */
@ExtendWith(RequiresCuda.class)
class CudaCounterSamplerTest {
  private static final int DEGREE = 1 << 14;
  private static CudaBackend backend;

  @BeforeAll
  static void openBackend() {
    backend = CudaBackend.open(1);
  }

  @AfterAll
  static void closeBackend() {
    if (backend != null) {
      backend.close();
    }
  }

  private static byte[] key() {
    byte[] key = new byte[CounterSampler.KEY_BYTES];
    new SplittableRandom(25).nextBytes(key);
    return key;
  }

  @Test
  void uniform_equalsTheCpuReference() {
    List<Modulus> moduli = Primes.nttPrimes(59, DEGREE, 2).stream().map(Modulus::of).toList();
    long[][][] gpu = backend.counterUniform(key(), 40, 3, moduli, DEGREE);
    for (int t = 0; t < 3; t++) {
      for (int l = 0; l < moduli.size(); l++) {
        long[] cpu = new long[DEGREE];
        CounterSampler.uniform(key(), 40 + t, l, moduli.get(l), cpu);
        assertArrayEquals(cpu, gpu[t][l], "token " + (40 + t) + " limb " + l);
      }
    }
  }

  @Test
  void errors_equalTheCpuReference() {
    long[][] gpu = backend.counterErrors(key(), 7, 3, DEGREE);
    for (int t = 0; t < 3; t++) {
      assertArrayEquals(CounterSampler.errors(key(), 7 + t, DEGREE), gpu[t], "token " + (7 + t));
    }
  }
}
