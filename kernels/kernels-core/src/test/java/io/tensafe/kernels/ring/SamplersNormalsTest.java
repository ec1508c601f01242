package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The DP noise's Gaussian ({@link Samplers#normalsFromSeed}): its body by Kolmogorov–Smirnov and
 * moments, and its tail beyond 8.6σ conditionally. Sampling cannot reach a tail event of
 * probability 2^-64, so the tail tests feed {@link Samplers#normalPairFromWords} keystream words
 * whose leading word(s) are zero (the event of probability 2^-64k) and check the law given that
 * event: u1 is then uniform on (0, 2^-64k), so R² − 2·64k·ln 2 is exponential with mean 2 and R is
 * at least sqrt(128k·ln 2) (9.42 for k = 1). A 53-bit fixed-point u1 (the sampler before issue 49)
 * maps the same words to R = sqrt(2·53·ln 2) = 8.57 and fails both checks.
 */
class SamplersNormalsTest {
  /** KS critical value at significance 0.001: 1.949/√n (asymptotic). */
  private static final double KS_001 = 1.949;

  private static final double LN2 = Math.log(2);

  @Test
  void normalPairFromWords_oneLeadingZeroWord_radiusBeyondNineAndExponentialExcess() {
    assertConditionalTail(1, 20_000, 11);
  }

  @Test
  void normalPairFromWords_twoLeadingZeroWords_radiusBeyondThirteenAndExponentialExcess() {
    assertConditionalTail(2, 20_000, 12);
  }

  @Test
  void normalPairFromWords_allWordsZero_finiteRadiusAtTheStatedBound() {
    double[] pair = new double[2];
    Samplers.normalPairFromWords(() -> 0L, pair, 0);
    double radius = Math.hypot(pair[0], pair[1]);
    assertEquals(Math.sqrt(2 * 1074 * LN2), radius, 1e-9);
    assertTrue(radius <= 38.6, "radius " + radius);
  }

  @Test
  void normalPairFromWords_allWordsOnes_smallestRadiusStillPositive() {
    double[] pair = new double[2];
    Samplers.normalPairFromWords(() -> -1L, pair, 0);
    double radius = Math.hypot(pair[0], pair[1]);
    assertTrue(radius > 0 && radius < 1e-7, "radius " + radius); // u1 = 1 − 2^-53
  }

  @Test
  void normalsFromSeed_manyValues_passKolmogorovSmirnovAndMoments() {
    byte[] seed = new byte[Samplers.SEED_BYTES];
    seed[0] = 49;
    int n = 100_000;
    double[] z = Samplers.normalsFromSeed(seed, n);
    double d = ksStatistic(z, SamplersNormalsTest::standardNormalCdf);
    assertTrue(d < KS_001 / Math.sqrt(n), "KS distance " + d);
    double mean = Arrays.stream(z).average().orElseThrow();
    double m2 = Arrays.stream(z).map(v -> v * v).average().orElseThrow();
    double m4 = Arrays.stream(z).map(v -> v * v * v * v).average().orElseThrow();
    assertEquals(0, mean, 4 / Math.sqrt(n));
    assertEquals(1, m2, 4 * Math.sqrt(2.0 / n));
    assertEquals(3, m4, 4 * Math.sqrt(96.0 / n));
    double[] radiusSquared = new double[n / 2];
    for (int i = 0; i < n / 2; i++) {
      radiusSquared[i] = z[2 * i] * z[2 * i] + z[2 * i + 1] * z[2 * i + 1];
    }
    double dr = ksStatistic(radiusSquared, x -> 1 - Math.exp(-x / 2));
    assertTrue(dr < KS_001 / Math.sqrt(n / 2.0), "KS distance of R² " + dr);
  }

  @Test
  void normalsFromSeed_sameSeed_sameValuesAndPrefixes() {
    byte[] seed = new byte[Samplers.SEED_BYTES];
    seed[5] = 7;
    double[] a = Samplers.normalsFromSeed(seed, 1001);
    assertArrayEquals(a, Samplers.normalsFromSeed(seed, 1001));
    assertArrayEquals(a, Arrays.copyOf(Samplers.normalsFromSeed(seed, 1002), 1001));
    for (double v : a) {
      assertTrue(Double.isFinite(v) && Math.abs(v) <= 38.6, "value " + v);
    }
  }

  /**
   * Feeds {@code zeroWords} zero words and then uniform words to {@code pairs} draws; checks every
   * radius is at least sqrt(128k·ln 2), the excess R² − 128k·ln 2 is Exp(mean 2) and the angle is
   * uniform (KS), and that single coordinates reach beyond 8.6.
   */
  private static void assertConditionalTail(int zeroWords, int pairs, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double floorSquared = 2 * 64 * zeroWords * LN2;
    double[] excess = new double[pairs];
    double[] angle = new double[pairs];
    double[] pair = new double[2];
    int beyond = 0;
    for (int i = 0; i < pairs; i++) {
      int[] left = {zeroWords};
      LongSupplier words = () -> left[0]-- > 0 ? 0L : random.nextLong();
      Samplers.normalPairFromWords(words, pair, 0);
      double radiusSquared = pair[0] * pair[0] + pair[1] * pair[1];
      assertTrue(
          radiusSquared >= floorSquared * (1 - 1e-12),
          "radius " + Math.sqrt(radiusSquared) + " below " + Math.sqrt(floorSquared));
      excess[i] = radiusSquared - floorSquared;
      angle[i] = (Math.atan2(pair[1], pair[0]) + Math.PI) / (2 * Math.PI);
      beyond += (Math.abs(pair[0]) > 8.6 ? 1 : 0) + (Math.abs(pair[1]) > 8.6 ? 1 : 0);
    }
    double d = ksStatistic(excess, x -> 1 - Math.exp(-x / 2));
    assertTrue(d < KS_001 / Math.sqrt(pairs), "KS distance of R² − floor " + d);
    double da = ksStatistic(angle, x -> Math.min(1, Math.max(0, x)));
    assertTrue(da < KS_001 / Math.sqrt(pairs), "KS distance of the angle " + da);
    assertTrue(beyond > pairs / 4, beyond + " coordinates beyond 8.6 of " + 2 * pairs);
  }

  /** sup |F_n − F| over the sample. */
  private static double ksStatistic(double[] sample, DoubleUnaryOperator cdf) {
    double[] sorted = sample.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    double d = 0;
    for (int i = 0; i < n; i++) {
      double f = cdf.applyAsDouble(sorted[i]);
      d = Math.max(d, Math.max((i + 1.0) / n - f, f - (double) i / n));
    }
    return d;
  }

  /** Φ(x) = erfc(−x/√2)/2, erfc by its Chebyshev fit (fractional error below 1.2e-7). */
  private static double standardNormalCdf(double x) {
    return 0.5 * erfc(-x / Math.sqrt(2));
  }

  private static double erfc(double x) {
    double z = Math.abs(x);
    double t = 1 / (1 + 0.5 * z);
    double poly =
        -z * z
            - 1.26551223
            + t
                * (1.00002368
                    + t
                        * (0.37409196
                            + t
                                * (0.09678418
                                    + t
                                        * (-0.18628806
                                            + t
                                                * (0.27886807
                                                    + t
                                                        * (-1.13520398
                                                            + t
                                                                * (1.48851587
                                                                    + t
                                                                        * (-0.82215223
                                                                            + t
                                                                                * 0.17087277))))))));
    double r = t * Math.exp(poly);
    return x >= 0 ? r : 2 - r;
  }
}
