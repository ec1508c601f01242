package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PrimesTest {

  @Test
  void isPrime_randomOddNumbers_agreesWithBigInteger() {
    SplittableRandom random = new SplittableRandom(2026);
    for (int i = 0; i < 5_000; i++) {
      long n = random.nextLong(1L << 60) | 1;
      assertEquals(BigInteger.valueOf(n).isProbablePrime(100), Primes.isPrime(n), () -> "n=" + n);
    }
  }

  @Test
  void isPrime_strongPseudoprimesToSmallBases_areComposite() {
    // 3215031751 is a strong pseudoprime to bases 2, 3, 5 and 7; 561 is a Carmichael number.
    assertFalse(Primes.isPrime(3215031751L));
    assertFalse(Primes.isPrime(561L));
    assertFalse(Primes.isPrime(1073479681L * 1073184769L));
    assertTrue(Primes.isPrime(1152921504606584833L));
    assertFalse(Primes.isPrime(1));
    assertTrue(Primes.isPrime(2));
  }

  @Test
  void nttPrimes_sameArguments_sameDescendingPrimesCongruentToOne() {
    int n = 1 << 14;
    List<Long> primes = Primes.nttPrimes(50, n, 4);
    assertEquals(primes, Primes.nttPrimes(50, n, 4));
    assertEquals(4, primes.size());
    long previous = Long.MAX_VALUE;
    for (long q : primes) {
      assertTrue(BigInteger.valueOf(q).isProbablePrime(100), q + " is composite");
      assertEquals(1, q % (2L * n));
      assertEquals(50, 64 - Long.numberOfLeadingZeros(q));
      assertTrue(q < previous);
      previous = q;
    }
  }

  @Test
  void nttPrimes_badArguments_refusedWithReason() {
    assertThrows(IllegalArgumentException.class, () -> Primes.nttPrimes(61, 1 << 12, 1));
    assertThrows(IllegalArgumentException.class, () -> Primes.nttPrimes(40, 3000, 1));
    assertThrows(IllegalArgumentException.class, () -> Primes.nttPrimes(40, 1 << 12, 0));
  }
}
