package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The scalar and the SIMD loops give the radix-2 reference's words exactly, lazy ones included. */
class NttImplementationTest {

  /**
   * Every degree from 2 to 2^16, each with both implementations and every prime size in use (50:
   * hosted at N = 2^11, on FMA lanes; 54: private mode; 60: hosted above 2^11) and a small one.
   */
  static Stream<Arguments> everyDegreeBothWays() {
    return IntStream.rangeClosed(1, 16)
        .boxed()
        .flatMap(
            log ->
                Stream.of(NttImplementation.values())
                    .flatMap(
                        implementation ->
                            IntStream.of(24, 50, 54, 60)
                                .filter(bits -> bits > log + 1)
                                .mapToObj(bits -> Arguments.of(1 << log, bits, implementation))));
  }

  private static NegacyclicNtt ntt(int n, int bits, NttImplementation implementation) {
    return NegacyclicNtt.of(Modulus.of(Primes.nttPrimes(bits, n, 1).getFirst()), n, implementation);
  }

  /** Random words below {@code bound}, with the range's extremes at the first positions. */
  private static long[] inputs(SplittableRandom random, int n, long bound) {
    long[] a = new long[n];
    for (int i = 0; i < n; i++) {
      a[i] = random.nextLong(bound);
    }
    a[0] = bound - 1;
    a[n - 1] = 0;
    if (n > 2) {
      a[n / 2] = bound - 1;
    }
    return a;
  }

  /**
   * Forward lazy transforms take inputs in [0, 4q) (also all at 4q - 1), inverse ones in [0, 2q);
   * both give the radix-2 reference's words exactly.
   */
  @ParameterizedTest
  @MethodSource("everyDegreeBothWays")
  void lazyTransforms_giveTheRadixTwoWords(int n, int bits, NttImplementation implementation) {
    NegacyclicNtt ntt = ntt(n, bits, implementation);
    long q = ntt.modulus().value();
    for (int seed = 0; seed < 3; seed++) {
      SplittableRandom random = new SplittableRandom(seed * 7919L + n + bits);
      assertLazyTransformMatches(
          inputs(random, n, 4 * q),
          ntt::forwardLazyInPlace,
          RadixTwoForward::forwardLazyInPlace,
          ntt);
      assertLazyTransformMatches(
          inputs(random, n, 2 * q),
          ntt::inverseLazyInPlace,
          RadixTwoForward::inverseLazyInPlace,
          ntt);
    }
    long[] top = new long[n];
    Arrays.fill(top, 4 * q - 1);
    assertLazyTransformMatches(
        top, ntt::forwardLazyInPlace, RadixTwoForward::forwardLazyInPlace, ntt);
  }

  @ParameterizedTest
  @MethodSource("everyDegreeBothWays")
  void reducedTransforms_agreeAcrossImplementations_andRoundTrip(
      int n, int bits, NttImplementation implementation) {
    NegacyclicNtt ntt = ntt(n, bits, implementation);
    NegacyclicNtt scalar = NegacyclicNtt.of(ntt.modulus(), n, NttImplementation.SCALAR);
    long q = ntt.modulus().value();
    long[] input = inputs(new SplittableRandom(n * 31L + bits), n, 4 * q);
    long[] actual = input.clone();
    long[] expected = input.clone();
    ntt.forwardInPlace(actual);
    scalar.forwardInPlace(expected);
    assertArrayEquals(expected, actual, "forward, reduced to [0, q)");
    ntt.inverseInPlace(actual);
    for (int i = 0; i < n; i++) {
      assertEquals(input[i] % q, actual[i], "inverse of forward at " + i);
    }
  }

  @Test
  void vector_isUsedForRealRings_andSmallRingsRunScalar() {
    int lanes = VectorNtt.lanes();
    Modulus q = Modulus.of(Primes.nttPrimes(60, 1 << 14, 1).getFirst());
    assertEquals(
        NttImplementation.VECTOR,
        NegacyclicNtt.of(q, 1 << 14, NttImplementation.VECTOR).implementation());
    assertEquals(
        NttImplementation.SCALAR,
        NegacyclicNtt.of(q, 1 << 14, NttImplementation.SCALAR).implementation());
    int small = lanes; // fewer than two vectors of words
    Modulus smallQ = Modulus.of(Primes.nttPrimes(30, small, 1).getFirst());
    assertEquals(
        NttImplementation.SCALAR,
        NegacyclicNtt.of(smallQ, small, NttImplementation.VECTOR).implementation());
  }

  @Test
  void testJvm_loadsTheVectorModule_soTheDefaultIsVectorOnSimdMachines() {
    // The build's surefire argLine adds the module; without it this project's NTT runs 3x slower.
    assertEquals(true, NttImplementation.vectorModulePresent());
    NttImplementation expected =
        VectorNtt.lanes() >= 4 ? NttImplementation.VECTOR : NttImplementation.SCALAR;
    assertEquals(expected, NttImplementation.configured());
    assertEquals(
        expected == NttImplementation.VECTOR
            ? "vector, " + VectorNtt.lanes() + " lanes (fma-double below 2^50, int64 above)"
            : "scalar",
        NttImplementation.describeConfigured());
  }

  /**
   * The transform under test gives the radix-2 reference's words exactly on {@code input} with
   * 64-bit arithmetic; with FMA doubles, words in [0, q) congruent to them (fully reduced).
   */
  private static void assertLazyTransformMatches(
      long[] input,
      java.util.function.Consumer<long[]> transform,
      java.util.function.BiConsumer<NegacyclicNtt, long[]> reference,
      NegacyclicNtt ntt) {
    long[] actual = input.clone();
    long[] expected = input.clone();
    transform.accept(actual);
    reference.accept(ntt, expected);
    if (ntt.arithmetic().equals("int64")) {
      assertArrayEquals(expected, actual);
      return;
    }
    long q = ntt.modulus().value();
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i] % q, actual[i], "word " + i + " (FMA loops reduce fully)");
    }
  }

  @Test
  void primesBelow2To50_runOnFmaDoubles_largerOnes_on64BitWords() {
    int n = 1 << 12;
    NegacyclicNtt fifty = ntt(n, 50, NttImplementation.VECTOR);
    NegacyclicNtt fiftyOne = ntt(n, 51, NttImplementation.VECTOR);
    // Without FMA in hardware (-XX:-UseFMA, or a CPU without FMA3) the lanes stay on 64-bit words.
    assertEquals(NttImplementation.fmaInHardware() ? "fma-double" : "int64", fifty.arithmetic());
    assertEquals("int64", fiftyOne.arithmetic());
    assertEquals(VectorNtt.lanes(), fifty.lanes());
    assertEquals("int64", ntt(n, 50, NttImplementation.SCALAR).arithmetic());
    assertEquals(1, ntt(n, 50, NttImplementation.SCALAR).lanes());
  }

  /** Inputs at the ends of the ranges, where the FMA loops' bounds are tightest, every stage. */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {16, 1 << 10, 1 << 16})
  void fmaLoops_areExactAtTheRangesEnds(int n) {
    NegacyclicNtt ntt = ntt(n, 50, NttImplementation.VECTOR);
    long q = ntt.modulus().value();
    for (long[] extremes : new long[][] {{4 * q - 1, 0}, {4 * q - 1, 2 * q}, {q - 1, q / 2}}) {
      long[] input = new long[n];
      for (int i = 0; i < n; i++) {
        input[i] = extremes[(Integer.bitCount(i) + i / 3) % 2];
      }
      long[] forward = input.clone();
      ntt.forwardLazyInPlace(forward);
      long[] reference = input.clone();
      RadixTwoForward.forwardLazyInPlace(ntt, reference);
      for (int i = 0; i < n; i++) {
        assertEquals(reference[i] % q, forward[i], "forward word " + i);
      }
      long[] inverse = new long[n];
      for (int i = 0; i < n; i++) {
        inverse[i] = Math.min(input[i], 2 * q - 1);
      }
      long[] expected = inverse.clone();
      RadixTwoForward.inverseLazyInPlace(ntt, expected);
      ntt.inverseInPlace(inverse);
      for (int i = 0; i < n; i++) {
        assertEquals(expected[i] % q, inverse[i], "inverse word " + i);
      }
    }
  }
}
