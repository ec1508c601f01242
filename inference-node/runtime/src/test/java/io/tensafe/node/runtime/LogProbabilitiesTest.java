package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class LogProbabilitiesTest {
  @Test
  void topIds_fixedVector_largestFirstTiesToLowerId() {
    float[] logits = {0.5f, 3f, -1f, 3f, 2f, Float.NEGATIVE_INFINITY, 2.5f};
    assertArrayEquals(new int[] {1, 3, 6, 4}, LogProbabilities.topIds(logits, 4));
    assertArrayEquals(new int[] {}, LogProbabilities.topIds(logits, 0));
    assertEquals(7, LogProbabilities.topIds(logits, 20).length);
  }

  @Test
  void topIds_randomLogits_matchFullSort() {
    Random random = new Random(7);
    float[] logits = new float[5000];
    for (int i = 0; i < logits.length; i++) {
      logits[i] = (float) (random.nextGaussian() * 4);
    }
    int[] sorted = Sampler.byLogitDescending(logits, null, logits.length);
    assertArrayEquals(java.util.Arrays.copyOf(sorted, 20), LogProbabilities.topIds(logits, 20));
  }

  @Test
  void entry_fixedVector_logSoftmaxOfRawLogits() {
    float[] logits = {1f, 2f, 3f};
    double norm = Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3));
    TokenLogprob e =
        LogProbabilities.entry(logits, 0, "a", 2, ids -> new String[] {"c" + ids[0], "c" + ids[1]});
    assertEquals(1 - norm, e.logprob(), 1e-12);
    assertEquals("c2", e.top().get(0).token());
    assertEquals(3 - norm, e.top().get(0).logprob(), 1e-12);
    assertEquals("c1", e.top().get(1).token());
    assertArrayEquals(new byte[] {'a'}, e.bytes());
  }

  @Test
  void entry_hugeLogits_stayFiniteAndSumToOne() {
    float[] logits = {1000f, 1000f, 990f};
    TokenLogprob e = LogProbabilities.entry(logits, 2, "x", 3, ids -> new String[] {"a", "b", "c"});
    double sum = e.top().stream().mapToDouble(a -> Math.exp(a.logprob())).sum();
    assertEquals(1, sum, 1e-9);
    assertTrue(e.logprob() < -10 && e.logprob() > -11, "" + e.logprob());
  }

  @Test
  void entry_topAbove20_refused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> LogProbabilities.entry(new float[] {0f}, 0, "", 21, ids -> new String[0]));
  }
}
