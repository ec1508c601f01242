package io.tensafe.kernels.ring;

import java.util.ArrayList;
import java.util.List;

/**
 * Primality and deterministic generation of NTT-friendly primes.
 *
 * <p>{@link #isPrime} is exact for every {@code n < 2^MAX_BITS}: Miller-Rabin with the first twelve
 * prime bases is deterministic below 3.3·10^24 (Sorenson and Webster, 2015), far above 2^64. The
 * public prototype shipped "primes" that were composite; every prime we generate passes this test.
 */
public final class Primes {
  private static final long[] WITNESSES = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

  private Primes() {}

  /** Exact primality for {@code 0 <= n < 2^Modulus.MAX_BITS}. */
  public static boolean isPrime(long n) {
    if (n < 2) {
      return false;
    }
    for (long p : WITNESSES) {
      if (n % p == 0) {
        return n == p;
      }
    }
    Modulus q = Modulus.of(n);
    long d = n - 1;
    int s = Long.numberOfTrailingZeros(d);
    d >>>= s;
    for (long a : WITNESSES) {
      if (!passesMillerRabinRound(q, a % n, d, s)) {
        return false;
      }
    }
    return true;
  }

  private static boolean passesMillerRabinRound(Modulus q, long a, long d, int s) {
    long n = q.value();
    long x = q.pow(a, d);
    if (x == 1 || x == n - 1) {
      return true;
    }
    for (int i = 1; i < s; i++) {
      x = q.mul(x, x);
      if (x == n - 1) {
        return true;
      }
    }
    return false;
  }

  /**
   * The {@code count} largest primes below {@code 2^bits} with {@code q ≡ 1 (mod 2n)}, in
   * descending order. Deterministic: the same arguments always give the same list.
   *
   * @param bits bit length of every returned prime, in [2 + log2(2n), MAX_BITS]
   * @param ringDegree the ring degree {@code n}, a power of two
   * @param count how many primes, at least 1
   * @throws IllegalArgumentException if the arguments are out of range or fewer than {@code count}
   *     such primes have exactly {@code bits} bits
   */
  public static List<Long> nttPrimes(int bits, int ringDegree, int count) {
    if (ringDegree < 2 || Integer.bitCount(ringDegree) != 1) {
      throw new IllegalArgumentException(
          "ring degree must be a power of two >= 2, was " + ringDegree);
    }
    long step = 2L * ringDegree;
    int stepBits = 63 - Long.numberOfLeadingZeros(step);
    if (bits > Modulus.MAX_BITS || bits < stepBits + 2) {
      throw new IllegalArgumentException(
          "prime bits must be in [" + (stepBits + 2) + ", " + Modulus.MAX_BITS + "], was " + bits);
    }
    if (count < 1) {
      throw new IllegalArgumentException("count must be >= 1, was " + count);
    }
    long lowest = 1L << (bits - 1);
    List<Long> primes = new ArrayList<>(count);
    // Largest candidate ≡ 1 mod step below 2^bits.
    for (long candidate = (1L << bits) - step + 1;
        candidate > lowest && primes.size() < count;
        candidate -= step) {
      if (isPrime(candidate)) {
        primes.add(candidate);
      }
    }
    if (primes.size() < count) {
      throw new IllegalArgumentException(
          "only "
              + primes.size()
              + " "
              + bits
              + "-bit primes ≡ 1 mod "
              + step
              + " exist; asked for "
              + count);
    }
    return List.copyOf(primes);
  }
}
