package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TextGeneratorTest {
  private static TinyModel model;
  private static QwenTokenizer tokenizer;
  private static TextGenerator generator;
  private static final String PROMPT =
      ChatMessage.chatMl(List.of(new ChatMessage("user", "What is a savings account?")));

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.generate(DType.F32, 8);
    tokenizer = QwenTokenizer.load();
    generator = new TextGenerator(model.decoder(), tokenizer);
  }

  @AfterAll
  static void close() throws Exception {
    model.close();
    tokenizer.close();
  }

  @Test
  void chatMl_rendersQwensTurnMarkers() {
    assertEquals(
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
            + "<|im_start|>assistant\n",
        ChatMessage.chatMl(
            List.of(new ChatMessage("system", "Be brief."), new ChatMessage("user", "Hi"))));
  }

  @Test
  void generate_sameSeed_sameTextAndStreamedPiecesAddUp() {
    SamplingParameters p = new SamplingParameters(0.9, 50, 0.95, 1234, 12, List.of());
    StringBuilder streamed = new StringBuilder();
    Generation a = generator.generate(PROMPT, p, streamed::append);
    Generation b = generator.generate(PROMPT, p, s -> {});
    assertEquals(a, b);
    assertEquals(a.text(), streamed.toString());
    assertEquals(12, a.completionTokens());
    assertEquals("length", a.finishReason());
    assertEquals(tokenizer.encode(PROMPT).length, a.promptTokens());
  }

  @Test
  void generate_stopString_endsBeforeItAndNeverStreamsIt() {
    Generation free = generator.generate(PROMPT, SamplingParameters.greedy(10), s -> {});
    assertTrue(free.text().length() > 2, free.text());
    String stop = free.text().substring(free.text().length() / 2, free.text().length() / 2 + 1);
    StringBuilder streamed = new StringBuilder();
    Generation stopped =
        generator.generate(
            PROMPT, new SamplingParameters(0, 0, 1, 0, 10, List.of(stop)), streamed::append);
    assertEquals("stop", stopped.finishReason());
    assertFalse(stopped.text().contains(stop));
    assertTrue(free.text().startsWith(stopped.text()));
    assertEquals(stopped.text(), streamed.toString());
  }
}
