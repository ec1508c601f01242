package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tensafe.chat.json.JsonGrammar;
import io.tensafe.chat.json.JsonPrefix;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTokenMaskTest {
  // ids:                 0     1      2    3     4       5     6     7    8 (end)
  private static final String[] TEXTS = {"{", "{\"", "}", "\"a", "\":1}", " ", "x}", null, null};

  private static int[] allowed(String prefix) {
    JsonPrefix p = JsonGrammar.anyObject().start();
    p.feed(prefix);
    JsonTokenMask m = new JsonTokenMask(TokenTexts.group(TEXTS), new long[] {8}, p);
    int[] count = new int[1];
    int[] ids = Arrays.copyOf(m.allowed(p, TEXTS.length, count), count[0]);
    Arrays.sort(ids);
    return ids;
  }

  @Test
  void allowed_atStart_onlyTokensThatOpenAnObject() {
    assertArrayEquals(new int[] {0, 1, 5}, allowed(""));
  }

  @Test
  void allowed_inAKey_tokensThatStayInItOrCloseItValidly() {
    // "a closes the key and goes on with a, not a colon: refused.
    assertArrayEquals(new int[] {0, 1, 2, 4, 5, 6}, allowed("{\""));
  }

  @Test
  void allowed_complete_onlyEndOfSequence() {
    assertArrayEquals(new int[] {8}, allowed("{}"));
  }

  @Test
  void next_candidates_neverOutsideThemAndEqualToFreeWhenAll() {
    float[] logits = {5f, 0.1f, 3f, 2f, -1f, 4f};
    Sampler free = new Sampler(new SamplingParameters(1.0, 0, 0.9, 42, 10, List.of()));
    Sampler all = new Sampler(new SamplingParameters(1.0, 0, 0.9, 42, 10, List.of()));
    Sampler masked = new Sampler(new SamplingParameters(1.0, 0, 1, 42, 10, List.of()));
    for (int i = 0; i < 50; i++) {
      assertEquals(free.next(logits), all.next(logits, new int[] {0, 1, 2, 3, 4, 5}, 6));
      int m = masked.next(logits, new int[] {1, 4, 9}, 2);
      assertEquals(true, m == 1 || m == 4, "drew " + m);
    }
    Sampler greedy = new Sampler(SamplingParameters.greedy(1));
    assertEquals(3, greedy.next(logits, new int[] {4, 3, 1}, 3));
  }
}
