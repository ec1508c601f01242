package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ModulusTest {
  private static final int SAMPLES = 20_000;

  @ParameterizedTest
  @ValueSource(
      longs = {2L, 3L, 65537L, 1152921504606584833L, 1152921504606846975L, 576460752303423489L})
  void mul_randomReducedOperands_matchesBigInteger(long q) {
    Modulus modulus = Modulus.of(q);
    SplittableRandom random = new SplittableRandom(q);
    BigInteger bigQ = BigInteger.valueOf(q);
    for (int i = 0; i < SAMPLES; i++) {
      long a = random.nextLong(q);
      long b = random.nextLong(q);
      long expected = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).mod(bigQ).longValue();
      assertEquals(expected, modulus.mul(a, b), () -> a + "*" + b + " mod " + q);
    }
  }

  @Test
  void mul_extremeOperands_matchesBigInteger() {
    long q = (1L << 60) - 93; // any 60-bit value exercises the widest Barrett path
    Modulus modulus = Modulus.of(q);
    long[] edges = {0, 1, 2, q - 2, q - 1, q / 2, q / 2 + 1};
    for (long a : edges) {
      for (long b : edges) {
        long expected =
            BigInteger.valueOf(a)
                .multiply(BigInteger.valueOf(b))
                .mod(BigInteger.valueOf(q))
                .longValue();
        assertEquals(expected, modulus.mul(a, b));
      }
    }
  }

  @Test
  void reduce_anyUnsignedWord_matchesBigInteger() {
    Modulus modulus = Modulus.of(1152921504606584833L);
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < SAMPLES; i++) {
      long x = random.nextLong();
      long expected = Modulus.unsigned(x).mod(BigInteger.valueOf(modulus.value())).longValue();
      assertEquals(expected, modulus.reduce(x));
    }
  }

  @Test
  void mulShoupLazy_anyUnsignedInput_staysBelowTwoQAndIsCongruent() {
    long q = 1152921504606584833L;
    Modulus modulus = Modulus.of(q);
    SplittableRandom random = new SplittableRandom(11);
    BigInteger bigQ = BigInteger.valueOf(q);
    for (int i = 0; i < SAMPLES; i++) {
      long a = random.nextLong();
      long w = random.nextLong(q);
      long wShoup = modulus.shoupPrecompute(w);
      long lazy = modulus.mulShoupLazy(a, w, wShoup);
      assertTrue(Long.compareUnsigned(lazy, 2 * q) < 0, "lazy result out of [0, 2q)");
      long expected = Modulus.unsigned(a).multiply(BigInteger.valueOf(w)).mod(bigQ).longValue();
      assertEquals(expected, lazy % q);
      assertEquals(expected, modulus.mulShoup(a, w, wShoup));
    }
  }

  @Test
  void shoupPrecompute_equalsTheExactQuotient_forPrimesOfEveryWidth() {
    SplittableRandom random = new SplittableRandom(12);
    for (long q :
        new long[] {
          3, 17, 65537, 1152921504606584833L, 18014398509404161L, (1L << 59) - 55, (1L << 54) - 33
        }) {
      Modulus modulus = Modulus.of(q);
      BigInteger bigQ = BigInteger.valueOf(q);
      for (int i = 0; i < SAMPLES; i++) {
        long w = i < 4 ? (i < 2 ? i : q - 4 + i) : random.nextLong(q);
        long exact = BigInteger.valueOf(w).shiftLeft(64).divide(bigQ).longValue();
        assertEquals(exact, modulus.shoupPrecompute(w), "q=" + q + " w=" + w);
      }
    }
  }

  @Test
  void addSubNegate_reducedOperands_wrapAroundQ() {
    Modulus modulus = Modulus.of(17);
    assertEquals(3, modulus.add(10, 10));
    assertEquals(12, modulus.sub(5, 10));
    assertEquals(0, modulus.negate(0));
    assertEquals(7, modulus.negate(10));
  }

  @Test
  void pow_fermat_givesOneForPrimeModulus() {
    long q = 1152921504606584833L;
    Modulus modulus = Modulus.of(q);
    assertEquals(1, modulus.pow(123456789, q - 1));
  }

  @Test
  void of_tooWideOrTooSmall_refusedWithReason() {
    IllegalArgumentException wide =
        assertThrows(IllegalArgumentException.class, () -> Modulus.of(1L << 60));
    assertTrue(wide.getMessage().contains("2^60"), wide.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Modulus.of(1));
  }

  @Test
  void constructor_forgedBarrettConstants_refused() {
    Modulus good = Modulus.of(65537);
    assertThrows(
        IllegalArgumentException.class,
        () -> new Modulus(good.value(), good.barrettHigh(), good.barrettLow() + 1));
  }
}
