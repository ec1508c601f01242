package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The counter-based generator: the block function against RFC 8439's test vector, the JDK's
 * ChaCha20 keystream against that block function (two independent implementations), each
 * coefficient computed on its own from its block as a GPU thread does, and the distributions.
 */
class CounterSamplerTest {
  private static final Modulus Q = Modulus.of(Primes.nttPrimes(59, 4096, 1).getFirst());

  private static byte[] key(long seed) {
    byte[] key = new byte[CounterSampler.KEY_BYTES];
    new SplittableRandom(seed).nextBytes(key);
    return key;
  }

  @Test
  void block_matchesRfc8439Section232() {
    byte[] key = new byte[32];
    for (int i = 0; i < 32; i++) {
      key[i] = (byte) i;
    }
    int[] nonce = {0x09000000, 0x4a000000, 0x00000000}; // bytes 00 00 00 09 00 00 00 4a 00 00 00 00
    int[] block = CounterSampler.block(CounterSampler.keyWords(key), 1, nonce);
    int[] expected = {
      0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3,
      0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
      0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
      0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2
    };
    assertArrayEquals(expected, block);
  }

  @Test
  void jdkKeystream_equalsTheBlockFunction_blockByBlock() {
    byte[] key = key(1);
    byte[] stream = CounterSampler.keystream(key, 0x1234, -5, 3, 64 * 5);
    int[] nonce = {0x1234, -5, 3};
    for (int b = 0; b < 5; b++) {
      int[] words = CounterSampler.block(CounterSampler.keyWords(key), b, nonce);
      for (int w = 0; w < 16; w++) {
        int at = 64 * b + 4 * w;
        int fromJdk =
            (stream[at] & 0xff)
                | (stream[at + 1] & 0xff) << 8
                | (stream[at + 2] & 0xff) << 16
                | (stream[at + 3] & 0xff) << 24;
        assertEquals(words[w], fromJdk, "block " + b + " word " + w);
      }
    }
  }

  /** The 64-bit word k of a stream, from the block function alone (what one GPU thread reads). */
  private static long word(byte[] key, int domain, int token, int limb, int k) {
    int[] block =
        CounterSampler.block(CounterSampler.keyWords(key), k / 8, new int[] {domain, token, limb});
    int w = 2 * (k % 8);
    return (block[w] & 0xffffffffL) | (long) block[w + 1] << 32;
  }

  @Test
  void uniform_eachCoefficientIsItsOwnWordsMod_q_computedAlone() {
    byte[] key = key(2);
    long[] out = new long[4096];
    CounterSampler.uniform(key, 11, 2, Q, out);
    BigInteger q = BigInteger.valueOf(Q.value());
    for (int i : new int[] {0, 1, 2, 7, 8, 1000, 4093, 4095}) {
      BigInteger value = BigInteger.ZERO;
      for (int j = 0; j < CounterSampler.WORDS_PER_UNIFORM; j++) {
        long w = word(key, CounterSampler.UNIFORM_DOMAIN, 11, 2, 3 * i + j);
        value = value.shiftLeft(64).or(new BigInteger(Long.toUnsignedString(w)));
      }
      assertEquals(value.mod(q).longValueExact(), out[i], "coefficient " + i);
    }
    for (long v : out) {
      assertTrue(v >= 0 && v < Q.value());
    }
  }

  @Test
  void uniform_isUniformOverSixteenBins() {
    long[] out = new long[1 << 16];
    CounterSampler.uniform(key(3), 0, 0, Q, out);
    int[] bins = new int[16];
    for (long v : out) {
      bins[
          (int)
              (BigInteger.valueOf(v)
                  .shiftLeft(4)
                  .divide(BigInteger.valueOf(Q.value()))
                  .intValue())]++;
    }
    double expected = out.length / 16.0;
    double chiSquare =
        Arrays.stream(bins).mapToDouble(b -> (b - expected) * (b - expected) / expected).sum();
    // 15 degrees of freedom: P(chi² > 40) < 5e-4.
    assertTrue(chiSquare < 40, "chi² " + chiSquare + " over " + Arrays.toString(bins));
  }

  @Test
  void errors_eachCoefficientIsItsWordsGaussian_andTheSpreadIsSigma() {
    byte[] key = key(4);
    long[] e = CounterSampler.errors(key, 9, 1 << 16);
    long[] table = CounterSampler.gaussianTable();
    for (int i : new int[] {0, 1, 7, 8, 65535}) {
      assertEquals(
          CounterSampler.gaussian(word(key, CounterSampler.ERROR_DOMAIN, 9, 0, i), table), e[i]);
    }
    double mean = Arrays.stream(e).average().orElseThrow();
    double variance = Arrays.stream(e).mapToDouble(x -> (x - mean) * (x - mean)).sum() / e.length;
    assertTrue(Math.abs(mean) < 0.1, "mean " + mean);
    // σ² = 10.24; the estimate's standard error at 2^16 samples is about 0.06.
    assertEquals(Samplers.ERROR_SIGMA * Samplers.ERROR_SIGMA, variance, 0.35);
    assertTrue(Arrays.stream(e).allMatch(x -> Math.abs(x) <= Samplers.ERROR_BOUND));
    assertTrue(Arrays.stream(e).anyMatch(x -> x < 0) && Arrays.stream(e).anyMatch(x -> x > 0));
  }

  @Test
  void gaussian_wordsAtTheTablesEdges() {
    long[] table = CounterSampler.gaussianTable();
    assertEquals(0, CounterSampler.gaussian(0, table));
    assertEquals(0, CounterSampler.gaussian(1, table)); // -0
    assertEquals(1, CounterSampler.gaussian(table[0] << 1, table));
    assertEquals(-1, CounterSampler.gaussian(table[0] << 1 | 1, table));
    assertEquals(Samplers.ERROR_BOUND, CounterSampler.gaussian(-2L, table));
    assertEquals(-Samplers.ERROR_BOUND, CounterSampler.gaussian(-1L, table));
  }

  @Test
  void sameInputs_sameOutputs_andEveryInputSeparatesTheStreams() {
    byte[] key = key(5);
    long[] base = new long[64];
    CounterSampler.uniform(key, 1, 1, Q, base);
    long[] again = new long[64];
    CounterSampler.uniform(key, 1, 1, Q, again);
    assertArrayEquals(base, again);
    long[] otherToken = new long[64];
    CounterSampler.uniform(key, 2, 1, Q, otherToken);
    long[] otherLimb = new long[64];
    CounterSampler.uniform(key, 1, 0, Q, otherLimb);
    long[] otherKey = new long[64];
    CounterSampler.uniform(key(6), 1, 1, Q, otherKey);
    for (long[] other : new long[][] {otherToken, otherLimb, otherKey}) {
      assertFalse(Arrays.equals(base, other));
    }
    assertFalse(
        Arrays.equals(CounterSampler.errors(key, 1, 64), CounterSampler.errors(key, 2, 64)));
  }

  @Test
  void reduce192_matchesBigInteger() {
    SplittableRandom random = new SplittableRandom(7);
    BigInteger q = BigInteger.valueOf(Q.value());
    for (int i = 0; i < 10_000; i++) {
      long a = random.nextLong();
      long b = random.nextLong();
      long c = random.nextLong();
      BigInteger value =
          new BigInteger(1, HexFormat.of().parseHex(String.format("%016x%016x%016x", a, b, c)));
      assertEquals(value.mod(q).longValueExact(), CounterSampler.reduce192(Q, a, b, c));
    }
    assertEquals(
        BigInteger.ONE.shiftLeft(192).subtract(BigInteger.ONE).mod(q).longValueExact(),
        CounterSampler.reduce192(Q, -1L, -1L, -1L));
  }

  @Test
  void wrongKeyLength_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> CounterSampler.errors(new byte[16], 0, 8));
    assertThrows(
        IllegalArgumentException.class,
        () -> CounterSampler.uniform(new byte[31], 0, 0, Q, new long[1]));
  }
}
