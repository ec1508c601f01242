package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The decoder on the generated tiny model: cache consistency, determinism, greedy decoding. */
class QwenDecoderTest {
  private static TinyModel model;
  private static QwenDecoder decoder;
  private static long[] prompt;

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.BF16, 21);
    decoder = model.decoder();
    try (QwenTokenizer tokenizer = QwenTokenizer.load()) {
      prompt = tokenizer.encode("What is a savings account?");
    }
  }

  @AfterAll
  static void close() throws Exception {
    model.close();
  }

  private static float[] prefill(long[] tokens) {
    try (KvCache cache = decoder.newCache()) {
      return decoder.forward(tokens, cache);
    }
  }

  @Test
  void forward_prefillThenDecode_matchesOnePrefill() {
    float[] whole = prefill(prompt);
    assertEquals(ModelShape.QWEN_VOCAB, whole.length);
    try (KvCache cache = decoder.newCache()) {
      decoder.forward(Arrays.copyOfRange(prompt, 0, 4), cache);
      decoder.forward(new long[] {prompt[4]}, cache);
      float[] stepwise = decoder.forward(new long[] {prompt[5]}, cache);
      assertEquals(6, cache.length());
      for (int i = 0; i < whole.length; i++) {
        assertEquals(whole[i], stepwise[i], 1e-4, "logit " + i);
      }
    }
  }

  @Test
  void forward_matchesAnIndependentScalarReference() throws Exception {
    double[] expected = new ScalarQwenReference(ModelFolder.load(model.dir())).lastLogits(prompt);
    float[] actual = prefill(prompt);
    double worst = 0;
    for (int i = 0; i < expected.length; i++) {
      worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
    }
    double largest = 0;
    for (double e : expected) {
      largest = Math.max(largest, Math.abs(e));
    }
    assertTrue(largest > 0.1, "logits must not be trivially small: " + largest);
    assertTrue(worst < 1e-4 * largest, "largest logit difference " + worst + " of " + largest);
  }

  @Test
  void forward_sameInput_sameNumbersEveryRun() {
    assertArrayEquals(prefill(prompt), prefill(prompt));
  }

  @Test
  void forward_laterTokensDependOnEarlierOnes() {
    long[] other = prompt.clone();
    other[0] = 9707; // another first token changes the last token's logits
    float[] a = prefill(prompt);
    float[] b = prefill(other);
    assertTrue(!Arrays.equals(a, b));
  }

  @Test
  void greedy_fiveTokens_sameSequenceTwice() {
    assertArrayEquals(greedy(5), greedy(5));
  }

  private static long[] greedy(int n) {
    long[] out = new long[n];
    try (KvCache cache = decoder.newCache()) {
      float[] logits = decoder.forward(prompt, cache);
      for (int i = 0; i < n; i++) {
        int best = Sampler.argmax(logits);
        out[i] = best;
        logits = decoder.forward(new long[] {best}, cache);
      }
    }
    return out;
  }
}
