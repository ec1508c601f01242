package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NegacyclicNttTest {

  /** Small rings where the O(n^2) BigInteger reference is affordable, with 30- to 60-bit primes. */
  static Stream<Arguments> smallRings() {
    return Stream.of(
        Arguments.of(2, 30),
        Arguments.of(4, 30),
        Arguments.of(8, 40),
        Arguments.of(16, 60),
        Arguments.of(256, 50),
        Arguments.of(1024, 60),
        Arguments.of(1024, 36));
  }

  /** Ring degrees of real parameter sets, checked with references that stay O(n). */
  static Stream<Arguments> largeRings() {
    return Stream.of(
        Arguments.of(1 << 11, 54),
        Arguments.of(1 << 13, 60),
        Arguments.of(1 << 14, 60),
        Arguments.of(1 << 16, 58));
  }

  private static NegacyclicNtt ntt(int n, int bits) {
    return NegacyclicNtt.of(Modulus.of(Primes.nttPrimes(bits, n, 1).getFirst()), n);
  }

  private static long[] random(SplittableRandom random, int n, long bound) {
    long[] a = new long[n];
    for (int i = 0; i < n; i++) {
      a[i] = random.nextLong(bound);
    }
    return a;
  }

  @ParameterizedTest
  @MethodSource("smallRings")
  void forward_randomPolynomial_evaluatesAtOddPowersOfPsiInBitReversedOrder(int n, int bits) {
    NegacyclicNtt ntt = ntt(n, bits);
    long q = ntt.modulus().value();
    BigInteger bigQ = BigInteger.valueOf(q);
    long[] a = random(new SplittableRandom(n * 31L + bits), n, q);
    long[] transformed = a.clone();
    ntt.forwardInPlace(transformed);
    int logN = Integer.numberOfTrailingZeros(n);
    BigInteger psi = BigInteger.valueOf(ntt.psi());
    assertEquals(BigInteger.ONE.negate().mod(bigQ), psi.modPow(BigInteger.valueOf(n), bigQ));
    for (int k = 0; k < n; k++) {
      int reversed = logN == 0 ? 0 : Integer.reverse(k) >>> (32 - logN);
      BigInteger point = psi.modPow(BigInteger.valueOf(2L * reversed + 1), bigQ);
      BigInteger value = BigInteger.ZERO;
      for (int j = n - 1; j >= 0; j--) { // Horner
        value = value.multiply(point).add(BigInteger.valueOf(a[j])).mod(bigQ);
      }
      assertEquals(value.longValue(), transformed[k], "k=" + k);
    }
  }

  @ParameterizedTest
  @MethodSource("smallRings")
  void pointwiseProduct_randomPolynomials_equalsNegacyclicConvolution(int n, int bits) {
    NegacyclicNtt ntt = ntt(n, bits);
    long q = ntt.modulus().value();
    BigInteger bigQ = BigInteger.valueOf(q);
    SplittableRandom random = new SplittableRandom(n * 17L + bits);
    long[] a = random(random, n, q);
    long[] b = random(random, n, q);
    BigInteger[] expected = new BigInteger[n];
    java.util.Arrays.fill(expected, BigInteger.ZERO);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        BigInteger term = BigInteger.valueOf(a[i]).multiply(BigInteger.valueOf(b[j]));
        int k = i + j;
        expected[k % n] = k < n ? expected[k].add(term) : expected[k - n].subtract(term);
      }
    }
    long[] product = multiply(ntt, a, b);
    for (int k = 0; k < n; k++) {
      assertEquals(expected[k].mod(bigQ).longValue(), product[k], "k=" + k);
    }
  }

  private static long[] multiply(NegacyclicNtt ntt, long[] a, long[] b) {
    long[] x = a.clone();
    long[] y = b.clone();
    ntt.forwardInPlace(x);
    ntt.forwardInPlace(y);
    for (int i = 0; i < x.length; i++) {
      x[i] = ntt.modulus().mul(x[i], y[i]);
    }
    ntt.inverseInPlace(x);
    return x;
  }

  @ParameterizedTest
  @MethodSource("largeRings")
  void inverse_afterForward_restoresInput(int n, int bits) {
    NegacyclicNtt ntt = ntt(n, bits);
    long[] a = random(new SplittableRandom(n + bits), n, ntt.modulus().value());
    long[] b = a.clone();
    ntt.forwardInPlace(b);
    ntt.inverseInPlace(b);
    assertArrayEquals(a, b);
  }

  @ParameterizedTest
  @MethodSource("largeRings")
  void multiplyByMonomial_randomPolynomial_rotatesNegacyclically(int n, int bits) {
    NegacyclicNtt ntt = ntt(n, bits);
    Modulus q = ntt.modulus();
    SplittableRandom random = new SplittableRandom(n * 7L + bits);
    long[] a = random(random, n, q.value());
    int shift = random.nextInt(n);
    long[] monomial = new long[n];
    monomial[shift] = 1;
    long[] product = multiply(ntt, a, monomial);
    for (int i = 0; i < n; i++) {
      int k = i + shift;
      long expected = k < n ? a[i] : q.negate(a[i]);
      assertEquals(expected, product[k % n], "i=" + i);
    }
  }

  /** Every degree from 2 to 2^16: odd and even stage counts, and the smallest special cases. */
  static Stream<Arguments> everyDegree() {
    return java.util.stream.IntStream.rangeClosed(1, 16)
        .mapToObj(log -> Arguments.of(1 << log, log % 2 == 0 ? 60 : 50));
  }

  @ParameterizedTest
  @MethodSource("largeRings")
  void lazyTransforms_inputsAtTopOfRange_stayInRangeAndCongruent(int n, int bits) {
    NegacyclicNtt ntt = ntt(n, bits);
    long q = ntt.modulus().value();
    SplittableRandom random = new SplittableRandom(n * 3L + bits);
    long[] reduced = random(random, n, q);
    long[] lazyInput = reduced.clone();
    for (int i = 0; i < n; i++) {
      lazyInput[i] += q * random.nextInt(4); // any representative in [0, 4q)
    }
    long[] expected = reduced.clone();
    ntt.forwardInPlace(expected);
    ntt.forwardLazyInPlace(lazyInput);
    for (int i = 0; i < n; i++) {
      assertTrue(lazyInput[i] >= 0 && lazyInput[i] < 4 * q, "forward lazy output out of [0, 4q)");
      assertEquals(expected[i], lazyInput[i] % q);
    }
    long[] inverseInput = expected.clone();
    for (int i = 0; i < n; i++) {
      inverseInput[i] += q * random.nextInt(2); // any representative in [0, 2q)
    }
    ntt.inverseLazyInPlace(inverseInput);
    for (int i = 0; i < n; i++) {
      assertTrue(
          inverseInput[i] >= 0 && inverseInput[i] < 2 * q, "inverse lazy output out of [0, 2q)");
      assertEquals(reduced[i], inverseInput[i] % q);
    }
  }

  @Test
  void of_badDegreeOrModulus_refusedWithReason() {
    Modulus q = Modulus.of(Primes.nttPrimes(40, 1 << 12, 1).getFirst());
    assertThrows(IllegalArgumentException.class, () -> NegacyclicNtt.of(q, 3000));
    assertThrows(IllegalArgumentException.class, () -> NegacyclicNtt.of(q, 1 << 18));
    IllegalArgumentException notCongruent =
        assertThrows(
            IllegalArgumentException.class, () -> NegacyclicNtt.of(Modulus.of(65539), 1 << 4));
    assertTrue(notCongruent.getMessage().contains("not congruent"), notCongruent.getMessage());
    // 97·193 = 18721 ≡ 1 mod 32 but is composite.
    IllegalArgumentException composite =
        assertThrows(
            IllegalArgumentException.class, () -> NegacyclicNtt.of(Modulus.of(18721), 1 << 4));
    assertTrue(composite.getMessage().contains("not prime"), composite.getMessage());
  }

  @Test
  void forward_wrongLength_refused() {
    NegacyclicNtt ntt = ntt(16, 30);
    assertThrows(IllegalArgumentException.class, () -> ntt.forwardInPlace(new long[8]));
  }
}
