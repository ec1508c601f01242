package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.ChiSquare;
import io.tensafe.kernels.TestRandoms;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SamplersTest {
  private static final int SAMPLES = 1 << 16;

  @Test
  void ternary_manySamples_uniformOverMinusOneZeroOne() {
    long[] s = Samplers.ternary(SAMPLES, TestRandoms.seeded(1));
    long[] counts = new long[3];
    for (long v : s) {
      counts[(int) v + 1]++;
    }
    double chiSquare = ChiSquare.againstUniform(counts);
    assertTrue(
        chiSquare < ChiSquare.CRITICAL_2_DOF,
        "chi-square " + chiSquare + " over the 0.1% critical value (2 dof)");
  }

  @Test
  void gaussian_manySamples_hasSigma3point2AndBound() {
    long[] e = Samplers.gaussian(SAMPLES, TestRandoms.seeded(2));
    double sum = 0;
    double squares = 0;
    for (long v : e) {
      assertTrue(Math.abs(v) <= Samplers.ERROR_BOUND);
      sum += v;
      squares += (double) v * v;
    }
    double mean = sum / SAMPLES;
    double sigma = Math.sqrt(squares / SAMPLES - mean * mean);
    assertEquals(0, mean, 0.05, "mean");
    assertEquals(Samplers.ERROR_SIGMA, sigma, 0.05, "standard deviation");
    long zeros = Arrays.stream(e).filter(v -> v == 0).count();
    // P(0) = 1/sum_k exp(-k^2/(2σ^2)) ≈ 0.1247 for σ = 3.2.
    assertEquals(0.1247, zeros / (double) SAMPLES, 0.006);
  }

  @Test
  void uniformFromSeed_sameSeedAndDomain_samePolynomial() {
    List<Modulus> moduli =
        List.of(
            Modulus.of(Primes.nttPrimes(60, 4096, 1).getFirst()),
            Modulus.of(Primes.nttPrimes(40, 4096, 1).getFirst()));
    byte[] seed = new byte[32];
    seed[0] = 7;
    RnsPoly a = Samplers.uniformFromSeed(seed, 1, moduli, 4096);
    RnsPoly b = Samplers.uniformFromSeed(seed.clone(), 1, moduli, 4096);
    assertEquals(a, b);
    assertTrue(a.isNtt());
    assertFalse(a.equals(Samplers.uniformFromSeed(seed, 2, moduli, 4096)), "domains must separate");
    seed[31] = 1;
    assertFalse(a.equals(Samplers.uniformFromSeed(seed, 1, moduli, 4096)), "seeds must separate");
    assertFalse(Arrays.equals(a.limb(0), a.limb(1)), "limbs must be independent");
  }

  @Test
  void uniformFromSeed_residues_inRangeAndSpreadOverIt() {
    Modulus q = Modulus.of(Primes.nttPrimes(40, 1 << 14, 1).getFirst());
    RnsPoly a = Samplers.uniformFromSeed(new byte[32], 0, List.of(q), 1 << 14);
    long[] buckets = new long[16];
    for (long v : a.limb(0)) {
      assertTrue(v >= 0 && v < q.value());
      buckets[(int) (v / (q.value() / 16 + 1))]++;
    }
    double chiSquare = ChiSquare.againstUniform(buckets);
    assertTrue(
        chiSquare < ChiSquare.CRITICAL_15_DOF,
        "chi-square " + chiSquare + " over the 0.1% critical value (15 dof)");
  }

  @Test
  void uniformFromSeed_zeroSeed_matchesPinnedVector() {
    // Pins the expansion (AES-256-CTR layout, masking, rejection) so a change cannot go unnoticed:
    // ciphertexts that ship c1 as a seed depend on it.
    Modulus q = Modulus.of(Primes.nttPrimes(60, 2048, 1).getFirst());
    assertEquals(1152921504606830593L, q.value());
    RnsPoly a = Samplers.uniformFromSeed(new byte[32], 0, List.of(q), 2048);
    assertArrayEquals(PINNED_ZERO_SEED_PREFIX, Arrays.copyOf(a.limb(0), 4));
  }

  /**
   * First four residues for q = 1152921504606830593 (the largest 60-bit prime ≡ 1 mod 4096) from
   * the all-zero seed, domain 0, limb 0, computed independently of this code with another AES-CTR
   * implementation (Python's {@code cryptography}): keystream words, big-endian, masked to 60 bits,
   * kept when below q.
   */
  private static final long[] PINNED_ZERO_SEED_PREFIX = {
    906842524335769993L, 957193130057408647L, 220547720749070009L, 676583319517492107L
  };

  @Test
  void gaussianFromSeed_matchesItsDefinition_andRepeatsAcrossCalls() throws Exception {
    // Definition: AES-256-CTR keyed by the seed, IV = "gaus" as a big-endian 64-bit domain, limb 0,
    // counter 0; 8 keystream bytes per sample, big-endian; magnitude = the number of table entries
    // at or below the top 63 bits, sign from the low bit. Checked here with a fresh JDK cipher.
    byte[] seed = new byte[32];
    for (int i = 0; i < seed.length; i++) {
      seed[i] = (byte) (31 * i + 7);
    }
    byte[] iv = new byte[16];
    long domain = 0x67617573L;
    for (int b = 0; b < 8; b++) {
      iv[b] = (byte) (domain >>> (56 - 8 * b));
    }
    javax.crypto.Cipher aes = javax.crypto.Cipher.getInstance("AES/CTR/NoPadding");
    aes.init(
        javax.crypto.Cipher.ENCRYPT_MODE,
        new javax.crypto.spec.SecretKeySpec(seed, "AES"),
        new javax.crypto.spec.IvParameterSpec(iv));
    int n = 4096;
    byte[] keystream = aes.doFinal(new byte[8 * n]);
    long[] table = cumulativeTableForTest();
    long[] expected = new long[n];
    for (int i = 0; i < n; i++) {
      long word = java.nio.ByteBuffer.wrap(keystream, 8 * i, 8).getLong();
      long top = word >>> 1;
      int magnitude = 0;
      for (long threshold : table) {
        if (top >= threshold) {
          magnitude++;
        }
      }
      expected[i] = (word & 1) == 0 ? magnitude : -magnitude;
    }
    assertArrayEquals(expected, Samplers.gaussianFromSeed(n, seed));
    // A smaller call in between reuses the thread's buffers; the next one must be unaffected.
    Samplers.gaussianFromSeed(16, new byte[32]);
    assertArrayEquals(expected, Samplers.gaussianFromSeed(n, seed));
  }

  /** The sampler's table, rebuilt from its documented definition. */
  private static long[] cumulativeTableForTest() {
    double[] weight = new double[Samplers.ERROR_BOUND + 1];
    double total = 0;
    for (int k = 0; k <= Samplers.ERROR_BOUND; k++) {
      double sigma = Samplers.ERROR_SIGMA;
      weight[k] = Math.exp(-(double) k * k / (2 * sigma * sigma)) * (k == 0 ? 1 : 2);
      total += weight[k];
    }
    long[] table = new long[Samplers.ERROR_BOUND];
    double cumulative = 0;
    for (int k = 0; k < Samplers.ERROR_BOUND; k++) {
      cumulative += weight[k] / total;
      table[k] = (long) Math.min(cumulative * 0x1p63, (double) Long.MAX_VALUE);
    }
    return table;
  }

  @Test
  void uniformFromSeed_wrongSeedLength_refused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> Samplers.uniformFromSeed(new byte[16], 0, List.of(Modulus.of(65537)), 16));
  }

  @Test
  void uniformBelowFromSeed_staysBelowTheBound_andSpreadsOverIt() {
    byte[] seed = new byte[Samplers.SEED_BYTES];
    seed[0] = 7;
    java.math.BigInteger bound =
        java.math.BigInteger.ONE
            .shiftLeft(80)
            .multiply(java.math.BigInteger.valueOf(3))
            .add(java.math.BigInteger.TEN);
    long[] words = Samplers.uniformBelowFromSeed(seed, bound, 4000);
    int upperHalf = 0;
    for (int i = 0; i < 4000; i++) {
      java.math.BigInteger v =
          java.math.BigInteger.valueOf(words[2 * i])
              .shiftLeft(64)
              .or(new java.math.BigInteger(Long.toUnsignedString(words[2 * i + 1])));
      assertTrue(v.signum() >= 0 && v.compareTo(bound) < 0, "value " + v);
      upperHalf += v.compareTo(bound.shiftRight(1)) >= 0 ? 1 : 0;
    }
    assertTrue(Math.abs(upperHalf - 2000) < 200, "upper half " + upperHalf);
    assertArrayEquals(words, Samplers.uniformBelowFromSeed(seed, bound, 4000));
  }

  @Test
  void normalsFromSeed_haveMeanZeroAndDeviationOne() {
    byte[] seed = new byte[Samplers.SEED_BYTES];
    seed[1] = 9;
    double[] z = Samplers.normalsFromSeed(seed, 20_001);
    assertEquals(20_001, z.length);
    double mean = java.util.Arrays.stream(z).average().orElseThrow();
    double variance = java.util.Arrays.stream(z).map(v -> (v - mean) * (v - mean)).sum() / z.length;
    assertEquals(0, mean, 0.03);
    assertEquals(1, Math.sqrt(variance), 0.02);
  }
}
