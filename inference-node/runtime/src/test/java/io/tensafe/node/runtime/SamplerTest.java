package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SamplerTest {
  private static final float[] LOGITS = {1f, 3f, 2f, 3f, -1f};

  private static int[] counts(SamplingParameters p, int draws) {
    Sampler sampler = new Sampler(p);
    int[] counts = new int[LOGITS.length];
    for (int i = 0; i < draws; i++) {
      counts[sampler.next(LOGITS)]++;
    }
    return counts;
  }

  @Test
  void greedy_picksTheFirstMaximum() {
    assertEquals(1, new Sampler(SamplingParameters.greedy(1)).next(LOGITS));
  }

  @Test
  void topK_neverPicksOutsideTheKLargest() {
    int[] c = counts(new SamplingParameters(1, 2, 1, 5, 1, List.of()), 2000);
    assertEquals(0, c[0] + c[2] + c[4]);
    assertTrue(c[1] > 800 && c[3] > 800, java.util.Arrays.toString(c));
  }

  @Test
  void topP_keepsTheSmallestSetReachingP() {
    // Softmax at T = 1: p(1) = p(3) ≈ 0.397, p(2) ≈ 0.146: top_p 0.75 keeps tokens 1 and 3,
    // top_p 0.8 also token 2 (0.793 < 0.8).
    int[] c = counts(new SamplingParameters(1, 0, 0.75, 6, 1, List.of()), 2000);
    assertEquals(0, c[0] + c[2] + c[4]);
    int[] wider = counts(new SamplingParameters(1, 0, 0.8, 6, 1, List.of()), 2000);
    assertEquals(0, wider[0] + wider[4]);
    assertTrue(wider[2] > 100, java.util.Arrays.toString(wider));
  }

  @Test
  void temperature_followsTheSoftmax() {
    int draws = 200_000;
    int[] c = counts(new SamplingParameters(1, 0, 1, 7, 1, List.of()), draws);
    double z = 0;
    for (float l : LOGITS) {
      z += Math.exp(l);
    }
    for (int i = 0; i < LOGITS.length; i++) {
      assertEquals(Math.exp(LOGITS[i]) / z, c[i] / (double) draws, 0.005, "token " + i);
    }
  }

  @Test
  void sameSeed_sameDraws() {
    SamplingParameters p = new SamplingParameters(0.8, 0, 0.95, 42, 1, List.of());
    Sampler a = new Sampler(p);
    Sampler b = new Sampler(p);
    for (int i = 0; i < 100; i++) {
      assertEquals(a.next(LOGITS), b.next(LOGITS));
    }
  }

  @Test
  void parameters_outOfRange_refused() {
    assertThrows(
        IllegalArgumentException.class, () -> new SamplingParameters(3, 0, 1, 0, 1, List.of()));
    assertThrows(
        IllegalArgumentException.class, () -> new SamplingParameters(1, 0, 0, 0, 1, List.of()));
    assertThrows(
        IllegalArgumentException.class, () -> new SamplingParameters(1, 0, 1, 0, 0, List.of()));
    assertThrows(
        IllegalArgumentException.class, () -> new SamplingParameters(1, 0, 1, 0, 1, List.of("")));
  }

  /** The primitive-key order equals the comparator's: logit descending, ties to the lower id. */
  @Test
  void byLogitDescending_equalsTheComparatorOrder_withTiesNegativeZeroAndExtremes() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(36);
    for (int trial = 0; trial < 200; trial++) {
      int n = 1 + random.nextInt(300);
      float[] logits = new float[n];
      for (int i = 0; i < n; i++) {
        int pick = random.nextInt(8);
        logits[i] =
            switch (pick) {
              case 0 -> 0.0f;
              case 1 -> -0.0f;
              case 2 -> Float.NEGATIVE_INFINITY;
              case 3 -> -Float.MAX_VALUE;
              case 4 -> Float.MIN_VALUE;
              default -> (float) Math.round(random.nextGaussian() * 4) / 2;
            };
      }
      int[] candidates = random.ints(n, 0, n).distinct().toArray();
      Integer[] expected = new Integer[candidates.length];
      for (int i = 0; i < candidates.length; i++) {
        expected[i] = candidates[i];
      }
      java.util.Arrays.sort(
          expected, (a, b) -> logits[a] != logits[b] ? Float.compare(logits[b], logits[a]) : a - b);
      int[] order = Sampler.byLogitDescending(logits, candidates, candidates.length);
      for (int i = 0; i < order.length; i++) {
        assertEquals(expected[i], order[i], "trial " + trial + " position " + i);
      }
    }
  }
}
