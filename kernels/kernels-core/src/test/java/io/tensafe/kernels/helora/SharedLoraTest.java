package io.tensafe.kernels.helora;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.ChiSquare;
import io.tensafe.kernels.TestRandoms;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.SwitchedAnswer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The two-round private LoRA protocol (ADR 0017): correct, and round 1 tells the client nothing.
 */
class SharedLoraTest {
  private record Parties(PrivateClient client, SharedLoraNode node) {}

  private static Parties parties(int dimension, long seed) {
    SecureRandom random = TestRandoms.seeded(seed);
    PrivateClient client = new PrivateClient(PrivateClient.parametersFor(dimension), random);
    return new Parties(client, new SharedLoraNode(client.publicKey(), random));
  }

  private static double[][] randomB(int rows, int rank, long seed) {
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    double[][] b = new double[rows][rank];
    for (double[] row : b) {
      for (int j = 0; j < rank; j++) {
        row[j] = random.nextGaussian() * 0.05;
      }
    }
    return b;
  }

  private static double bound(double[][] a, double[][] b) {
    return Math.max(RowChecks.maxRowL1(a), RowChecks.maxRowL1(b)) * 1.01;
  }

  /** Both rounds as the client and the node run them; the client's view only. */
  private static double[] delta(Parties p, SharedLoraNode.Site site, double[] x) {
    SharedLoraNode.RoundOne one = roundOne(p, site, x);
    long[][] shares = p.client().decryptShares(one.toClient(), site.aLayout());
    List<Ciphertext> sent =
        p.client()
            .encryptShares(shares, one.toClient().getFirst().scale(), site.bChunks().chunks());
    return p.client()
        .decryptDeltas(
            p.node().roundTwoWithoutNoiseForTesting(site, one.share(), sent), site.bLayout());
  }

  private static SharedLoraNode.RoundOne roundOne(Parties p, SharedLoraNode.Site site, double[] x) {
    return p.node().roundOne(site, p.client().encryptSharedInput(x, site.aChunks().chunks()));
  }

  /**
   * At the 1.5B shape's attention width (d = 1536, N = 4096) an input split in 6 chunks needs 2
   * answers per rank-32 site instead of 16, and the deltas are as exact.
   */
  @Test
  void chunkedInputs_giveBAx_withEightTimesFewerAnswers() {
    int d = 1536;
    int r = 32;
    Parties p = parties(d, 31);
    double[][] a = LoraData.loraA(r, d, 32);
    double[][] b = randomB(256, r, 33);
    // Inputs of 55 KB, answers of 39 KB: q, k and v's x in 6 chunks; B's shares (1536 outputs,
    // switched answers of 21 KB) in 2.
    assertEquals(6, ChunkedLayout.cheapest(d, new int[] {r, r, r}, 4096, 55_353, 39_400));
    assertEquals(2, ChunkedLayout.cheapest(r, new int[] {1536}, 4096, 55_353, 20_900));
    SharedLoraNode.Site whole = p.node().prepare(a, b, bound(a, b), 1, 1);
    SharedLoraNode.Site chunked = p.node().prepare(a, b, bound(a, b), 6, 2);
    assertEquals(16, whole.aLayout().plaintextCount());
    assertEquals(2, chunked.aLayout().plaintextCount());
    double[] x = LoraData.activations(1, d, 34)[0];
    double[] expected = LoraData.multiply(b, LoraData.multiply(a, x));
    double[] fromWhole = delta(p, whole, x);
    double[] fromChunks = delta(p, chunked, x);
    double norm = Math.sqrt(Arrays.stream(expected).map(v -> v * v).sum());
    double worstWhole = 0;
    double worstChunked = 0;
    for (int i = 0; i < expected.length; i++) {
      worstWhole = Math.max(worstWhole, Math.abs(expected[i] - fromWhole[i]) / norm);
      worstChunked = Math.max(worstChunked, Math.abs(expected[i] - fromChunks[i]) / norm);
    }
    System.out.println("DEBUG whole " + worstWhole + " chunked " + worstChunked + " norm " + norm);
    assertTrue(worstWhole > 0 && worstChunked > 0, "the deltas are computed, not copied");
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i], fromChunks[i], 1e-5 * norm, "chunked output " + i);
      assertEquals(expected[i], fromWhole[i], 1e-5 * norm, "whole output " + i);
    }
  }

  @Test
  void twoRounds_giveBAx_withinTheFloodingBound() {
    int d = 64;
    int r = 8;
    Parties p = parties(d, 1);
    double[][] a = LoraData.loraA(r, d, 2);
    double[][] b = randomB(d, r, 3);
    double weightBound = bound(a, b);
    SharedLoraNode.Site site = p.node().prepare(a, b, weightBound, 1, 1);
    for (double[] x : LoraData.activations(4, d, 4)) {
      double[] expected = LoraData.multiply(b, LoraData.multiply(a, x));
      double[] actual = delta(p, site, x);
      double largest = Arrays.stream(x).map(Math::abs).max().orElseThrow();
      // Flooding 2^40·20·‖P_B‖₁ over the product scale 2^100 / (‖x‖∞·bound²), with ‖P_B‖₁ about
      // Δb·Σ‖B_i‖₁, plus the weights' rounding at 2^30 / bound: both about 2^-25 of this.
      double sumB =
          Arrays.stream(b).mapToDouble(row -> Arrays.stream(row).map(Math::abs).sum()).sum();
      double tolerance = Math.pow(2, -20) * largest * weightBound * (sumB + r * weightBound);
      double signal = Arrays.stream(expected).map(Math::abs).max().orElseThrow();
      assertTrue(signal > 20 * tolerance, "the test must be able to fail: " + signal);
      for (int i = 0; i < d; i++) {
        assertEquals(expected[i], actual[i], tolerance, "output " + i);
      }
    }
  }

  /** Round-1 shares (limb 0) of {@code tokens} inputs, as the client decrypts them. */
  private static long[] shares(Parties p, SharedLoraNode.Site site, double[][] inputs) {
    long[] all = new long[inputs.length * site.aLayout().rank()];
    int k = 0;
    for (double[] x : inputs) {
      SharedLoraNode.RoundOne one = roundOne(p, site, x);
      for (long[] share : p.client().decryptShares(one.toClient(), site.aLayout())) {
        all[k++] = share[0];
      }
    }
    return all;
  }

  /** Seeded, so the statistics are the same every run. */
  @Test
  void roundOneShares_areUniform_andTheSameWhateverAxIs() {
    int d = 64;
    int r = 64;
    Parties p = parties(d, 20_261_124);
    long q = p.client().parameters().moduli().getFirst().value();
    double[][] b = randomB(d, r, 5);
    double[][] a1 = LoraData.loraA(r, d, 6);
    double[][] a2 = new double[r][d];
    for (double[] row : a2) {
      Arrays.fill(row, 0.01); // a very different A·x
    }
    double[][] inputs = LoraData.activations(40, d, 7);
    long[] h1 =
        ChiSquare.sixteenBuckets(shares(p, p.node().prepare(a1, b, bound(a1, b), 1, 1), inputs), q);
    long[] h2 =
        ChiSquare.sixteenBuckets(shares(p, p.node().prepare(a2, b, bound(a2, b), 1, 1), inputs), q);
    assertTrue(ChiSquare.againstUniform(h1) < ChiSquare.CRITICAL_15_DOF, Arrays.toString(h1));
    assertTrue(ChiSquare.againstUniform(h2) < ChiSquare.CRITICAL_15_DOF, Arrays.toString(h2));
    assertTrue(ChiSquare.twoSample(h1, h2) < ChiSquare.CRITICAL_15_DOF, "shares depend on A·x");
  }

  @Test
  void aShare_isUsedOnce_andWeightsAboveThePublicBound_areRefused() {
    int d = 64;
    Parties p = parties(d, 8);
    double[][] a = LoraData.loraA(8, d, 9);
    double[][] b = randomB(d, 8, 10);
    SharedLoraNode.Site site = p.node().prepare(a, b, bound(a, b), 1, 1);
    double[] x = LoraData.activations(1, d, 11)[0];
    SharedLoraNode.RoundOne one = roundOne(p, site, x);
    long[][] shares = p.client().decryptShares(one.toClient(), site.aLayout());
    List<Ciphertext> sent =
        p.client()
            .encryptShares(shares, one.toClient().getFirst().scale(), site.bChunks().chunks());
    assertThrows(
        IllegalArgumentException.class, () -> p.node().roundTwo(site, one.share(), sent, 0));
    List<SwitchedAnswer> answer = p.node().roundTwo(site, one.share(), sent, 0.01);
    assertEquals(site.bLayout().plaintextCount(), answer.size());
    assertThrows(
        IllegalStateException.class, () -> p.node().roundTwo(site, one.share(), sent, 0.01));
    assertThrows(
        IllegalArgumentException.class, () -> p.node().prepare(a, b, bound(a, b) / 2, 1, 1));
    assertThrows(
        IllegalArgumentException.class, () -> p.node().prepare(a, randomB(d, 7, 12), 100, 1, 1));
  }

  /** The DP noise round 2 adds has the asked standard deviation, centred on the exact delta. */
  @Test
  void roundTwo_addsGaussianNoiseOfTheAskedDeviation() {
    int d = 64;
    int r = 8;
    double sigma = 0.05;
    Parties p = parties(d, 13);
    double[][] a = LoraData.loraA(r, d, 14);
    double[][] b = randomB(d, r, 15);
    SharedLoraNode.Site site = p.node().prepare(a, b, bound(a, b), 1, 1);
    double sum = 0;
    double sumSquares = 0;
    int count = 0;
    for (double[] x : LoraData.activations(40, d, 16)) {
      SharedLoraNode.RoundOne one = roundOne(p, site, x);
      long[][] shares = p.client().decryptShares(one.toClient(), site.aLayout());
      List<Ciphertext> sent =
          p.client()
              .encryptShares(shares, one.toClient().getFirst().scale(), site.bChunks().chunks());
      double[] noisy =
          p.client()
              .decryptDeltas(p.node().roundTwo(site, one.share(), sent, sigma), site.bLayout());
      double[] exact = LoraData.multiply(b, LoraData.multiply(a, x));
      for (int i = 0; i < d; i++) {
        double residual = noisy[i] - exact[i];
        sum += residual;
        sumSquares += residual * residual;
        count++;
      }
    }
    double mean = sum / count;
    double deviation = Math.sqrt(sumSquares / count - mean * mean);
    // 2,560 draws: the sample deviation is within 5% of σ, and the mean within 4 standard errors.
    assertEquals(sigma, deviation, 0.05 * sigma, "deviation");
    assertEquals(0, mean, 4 * sigma / Math.sqrt(count), "mean");
  }
}
