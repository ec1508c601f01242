package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Log-probabilities and several choices of one prompt, on a generated Qwen model (ADR 0044). */
class TokenLogprobsTest {
  private static TinyModel model;
  private static QwenTokenizer tokenizer;
  private static TextGenerator generator;
  private static long[] prompt;

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.F32, 8);
    tokenizer = QwenTokenizer.load();
    generator = new TextGenerator(model.decoder(), tokenizer);
    prompt =
        tokenizer.encode(
            ChatMessage.chatMl(List.of(new ChatMessage("user", "What is a savings account?"))));
  }

  @AfterAll
  static void close() throws Exception {
    model.close();
    tokenizer.close();
  }

  @Test
  void generate_top5AtTemperature0_sortedSumAtMostOneChosenFirstAndTextsAddUp() {
    SamplingParameters p = SamplingParameters.greedy(12).withLogprobs(5);
    List<TextDelta> pieces = new ArrayList<>();
    Generation g = generator.generate(prompt, p, null, pieces::add);
    assertFalse(g.logprobs().isEmpty());
    StringBuilder tokens = new StringBuilder();
    for (TokenLogprob e : g.logprobs()) {
      assertEquals(5, e.top().size());
      double sum = 0;
      for (int i = 0; i < e.top().size(); i++) {
        double lp = e.top().get(i).logprob();
        assertTrue(lp <= 0);
        if (i > 0) {
          assertTrue(lp <= e.top().get(i - 1).logprob(), "sorted: " + e.top());
        }
        sum += Math.exp(lp);
      }
      assertTrue(sum <= 1 + 1e-9, "sum " + sum);
      // Greedy without a mask draws the most likely token: the chosen entry is the first one.
      assertEquals(e.top().getFirst().logprob(), e.logprob(), 1e-12);
      if (!e.token().isEmpty()) {
        assertEquals(e.top().getFirst().token(), e.token());
      }
      tokens.append(e.token());
    }
    assertEquals(g.text(), tokens.toString());
    // The streamed pieces carry the same entries, in order.
    assertEquals(g.logprobs(), pieces.stream().flatMap(d -> d.logprobs().stream()).toList());
    assertTrue(g.logprobs().size() <= g.completionTokens());
  }

  @Test
  void generate_chosenLogprob_matchesTheDecodersOwnLogits() {
    Generation g =
        generator.generate(prompt, SamplingParameters.greedy(1).withLogprobs(0), null, d -> {});
    float[] logits = model.decoder().forward(prompt, model.decoder().newCache());
    int chosen = Sampler.argmax(logits);
    double norm = LogProbabilities.logSumExp(logits);
    assertEquals(logits[chosen] - norm, g.logprobs().getFirst().logprob(), 1e-9);
    assertTrue(g.logprobs().getFirst().top().isEmpty());
  }

  @Test
  void generate_withoutLogprobs_hasNone() {
    Generation g = generator.generate(prompt, SamplingParameters.greedy(4), null, d -> {});
    assertNull(g.logprobs());
  }

  @Test
  void generateChoices_threeSeeded_choiceZeroIsTheSingleGenerationAndPrefillRunsOnce() {
    SamplingParameters p = new SamplingParameters(1.0, 0, 1, 99, 8, List.of());
    Generation single = generator.generate(prompt, p, null, d -> {});
    StepCounter steps = new StepCounter();
    List<TextDelta> pieces = new ArrayList<>();
    List<Generation> choices = generator.generateChoices(prompt, p, 3, steps, pieces::add);
    assertEquals(3, choices.size());
    assertEquals(single, choices.getFirst());
    assertNotEquals(choices.get(1).text(), choices.get(2).text());
    // One prefill step of the whole prompt; every other step runs one token.
    assertEquals(1, steps.sizes.stream().filter(n -> n == prompt.length).count());
    assertEquals(
        1 + choices.stream().mapToInt(g -> g.completionTokens() - 1).sum(), steps.sizes.size());
    for (int i = 0; i < 3; i++) {
      int index = i;
      String streamed =
          pieces.stream()
              .filter(d -> d.index() == index)
              .map(TextDelta::text)
              .reduce("", String::concat);
      assertEquals(choices.get(i).text(), streamed);
    }
    // Each choice's pieces come before the next choice's.
    for (int i = 1; i < pieces.size(); i++) {
      assertTrue(pieces.get(i).index() >= pieces.get(i - 1).index());
    }
    assertEquals(choices, generator.generateChoices(prompt, p, 3, null, d -> {}));
  }

  @Test
  void generateChoices_outOfBounds_refused() {
    SamplingParameters p = SamplingParameters.greedy(2);
    assertThrows(
        IllegalArgumentException.class,
        () -> generator.generateChoices(prompt, p, 0, null, d -> {}));
    assertThrows(
        IllegalArgumentException.class,
        () -> generator.generateChoices(prompt, p, TextGenerator.MAX_CHOICES + 1, null, d -> {}));
  }

  @Test
  void total_sumsCompletionsAndKeepsThePromptOnce() {
    Generation t =
        Generation.total(
            List.of(new Generation("a", 7, 3, "stop"), new Generation("b", 7, 5, "length")));
    assertEquals(new Generation("a", 7, 8, "length"), t);
  }

  /** Counts the tokens of each forward pass; adds no delta. */
  private static final class StepCounter implements AdapterDeltas {
    final List<Integer> sizes = new ArrayList<>();

    @Override
    public void beginStep(int tokens) {
      sizes.add(tokens);
    }

    @Override
    public NDArray[] deltas(List<String> modules, NDArray input, NDManager step) {
      return new NDArray[modules.size()];
    }
  }
}
