package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.SplittableRandom;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link FmaLanes} against exact integer arithmetic, at the ends of its stated ranges: {@code
 * mulMod} for every {@code |y| ≤ 4q} and {@code |w| ≤ q/2} gives a congruent value within {@code
 * 3q/4}; {@code reduce} a congruent value within {@code q/2 + 1}; the word conversions are exact
 * below 2^52.
 */
class FmaLanesTest {
  private static final int LANES = FmaLanes.lanes();

  @ParameterizedTest
  @ValueSource(ints = {20, 36, 49, 50})
  void mulMod_isCongruent_andWithinThreeQuartersOfQ(int bits) {
    long q = Primes.nttPrimes(bits, 16, 1).getFirst();
    SplittableRandom random = new SplittableRandom(bits);
    long[] edgesY = {4 * q, -4 * q, 4 * q - 1, 0, q, -q, 2 * q + 1};
    long[] edgesW = {(q - 1) / 2, -(q - 1) / 2, 1, -1, 0};
    for (int round = 0; round < 4000; round++) {
      double[] y = new double[LANES];
      double[] w = new double[LANES];
      for (int k = 0; k < LANES; k++) {
        y[k] =
            round < 100 ? edgesY[(round + k) % edgesY.length] : random.nextLong(-4 * q, 4 * q + 1);
        w[k] =
            round < 100
                ? edgesW[(round / 7 + k) % edgesW.length]
                : random.nextLong(-(q / 2), q / 2 + 1);
      }
      double[] r = new double[LANES];
      FmaLanes.mulMod(
              DoubleVector.fromArray(FmaLanes.SPECIES, y, 0),
              DoubleVector.fromArray(FmaLanes.SPECIES, w, 0),
              DoubleVector.fromArray(FmaLanes.SPECIES, FmaLanes.quotients(w, q), 0),
              DoubleVector.broadcast(FmaLanes.SPECIES, q),
              DoubleVector.broadcast(FmaLanes.SPECIES, FmaLanes.ROUNDING))
          .intoArray(r, 0);
      for (int k = 0; k < LANES; k++) {
        BigInteger exact =
            BigInteger.valueOf((long) y[k]).multiply(BigInteger.valueOf((long) w[k]));
        assertEquals(r[k], Math.rint(r[k]), "an integer");
        assertEquals(
            exact.mod(BigInteger.valueOf(q)),
            BigInteger.valueOf((long) r[k]).mod(BigInteger.valueOf(q)),
            y[k] + " · " + w[k]);
        assertTrue(Math.abs(r[k]) <= 0.75 * q, "|r| = " + Math.abs(r[k]) + " > 3q/4");
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {20, 50})
  void reduce_isCongruent_andWithinHalfQ_forAnyIntegerBelow2To53(int bits) {
    long q = Primes.nttPrimes(bits, 16, 1).getFirst();
    SplittableRandom random = new SplittableRandom(bits);
    long limit = (1L << 53) - 1;
    for (int round = 0; round < 4000; round++) {
      double[] x = new double[LANES];
      for (int k = 0; k < LANES; k++) {
        x[k] = round == 0 ? (k % 2 == 0 ? limit : -limit) : random.nextLong(-limit, limit + 1);
      }
      double[] r = new double[LANES];
      FmaLanes.reduce(
              DoubleVector.fromArray(FmaLanes.SPECIES, x, 0),
              DoubleVector.broadcast(FmaLanes.SPECIES, q),
              DoubleVector.broadcast(FmaLanes.SPECIES, 1.0 / q),
              DoubleVector.broadcast(FmaLanes.SPECIES, FmaLanes.ROUNDING))
          .intoArray(r, 0);
      for (int k = 0; k < LANES; k++) {
        assertEquals(Math.floorMod((long) x[k], q), Math.floorMod((long) r[k], q), "x = " + x[k]);
        assertTrue(Math.abs(r[k]) <= q / 2.0 + 1, "|r| = " + Math.abs(r[k]));
        assertEquals(Math.floorMod((long) x[k], q), FmaLanes.toWord(x[k], q));
      }
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {0, 1, (1L << 52) - 1, 123456789012345L})
  void wordConversions_areExactBelow2To52(long word) {
    long[] words = new long[LANES];
    java.util.Arrays.fill(words, word);
    long[] back = new long[LANES];
    DoubleVector asDoubles = FmaLanes.fromWords(LongVector.fromArray(LaneMath.SPECIES, words, 0));
    assertEquals((double) word, asDoubles.lane(0));
    FmaLanes.toWords(asDoubles).intoArray(back, 0);
    assertEquals(word, back[LANES - 1]);
  }
}
