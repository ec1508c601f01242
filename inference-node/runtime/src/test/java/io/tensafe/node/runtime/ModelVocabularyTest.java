package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.ModelVocabulary;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 36: a model folder's own tokenizer and end-of-sequence ids are what the node runs. */
class ModelVocabularyTest {
  @Test
  void theGeneratedFolder_namesQwensEnds_andItsOwnTokenizer() throws Exception {
    try (TinyModel model = TinyModel.generate(DType.F32, 5)) {
      ModelVocabulary v = ModelVocabulary.read(model.dir());
      assertArrayEquals(new long[] {151645, 151643}, v.endTokens());
      assertEquals(model.dir().resolve("tokenizer.json"), v.tokenizerJson());
    }
  }

  @Test
  void eosComesFromGenerationConfig_elseConfig_andAFolderWithoutEitherOrATokenizerIsRefused()
      throws Exception {
    Path dir = Files.createTempDirectory("vocab");
    assertTrue(
        assertThrows(java.io.IOException.class, () -> ModelVocabulary.read(dir))
            .getMessage()
            .contains("tokenizer.json"));
    Files.writeString(dir.resolve("tokenizer.json"), "{}");
    Files.writeString(dir.resolve("config.json"), "{\"eos_token_id\": 7}");
    assertArrayEquals(new long[] {7}, ModelVocabulary.read(dir).endTokens());
    Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": [9, 11]}");
    assertArrayEquals(new long[] {9, 11}, ModelVocabulary.read(dir).endTokens());
    Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": \"x\"}");
    assertThrows(java.io.IOException.class, () -> ModelVocabulary.read(dir));
    Files.writeString(dir.resolve("generation_config.json"), "{}");
    Files.writeString(dir.resolve("config.json"), "{}");
    assertTrue(
        assertThrows(java.io.IOException.class, () -> ModelVocabulary.read(dir))
            .getMessage()
            .contains("eos_token_id"));
  }

  /**
   * A folder whose EOS is another id stops on its own EOS: the id the model picks first (greedy),
   * named as the folder's only end, ends the generation at once; with Qwen's ends it runs on.
   */
  @Test
  void aFolderWhoseEosDiffers_stopsOnItsOwnEos() throws Exception {
    try (TinyModel model = TinyModel.generate(DType.F32, 5)) {
      String prompt = ChatMessage.chatMl(List.of(new ChatMessage("user", "Hello there")));
      ModelVocabulary qwen = ModelVocabulary.read(model.dir());
      try (QwenTokenizer tokenizer = QwenTokenizer.fromFile(qwen.tokenizerJson())) {
        long[] ids = tokenizer.encode(prompt);
        float[] logits;
        try (KvCache cache = model.decoder().newCache()) {
          logits = model.decoder().forward(ids, cache);
        }
        int first = 0;
        for (int i = 1; i < logits.length; i++) {
          if (logits[i] > logits[first]) {
            first = i;
          }
        }
        Generation runsOn =
            new TextGenerator(model.decoder(), tokenizer, qwen.endTokens())
                .generate(prompt, SamplingParameters.greedy(4), s -> {});
        assertEquals("length", runsOn.finishReason());
        Files.writeString(
            model.dir().resolve("generation_config.json"), "{\"eos_token_id\": " + first + "}");
        ModelVocabulary own = ModelVocabulary.read(model.dir());
        assertArrayEquals(new long[] {first}, own.endTokens());
        Generation stops =
            new TextGenerator(model.decoder(), tokenizer, own.endTokens())
                .generate(prompt, SamplingParameters.greedy(4), s -> {});
        assertEquals("stop", stops.finishReason());
        assertEquals("", stops.text());
        assertEquals(1, stops.completionTokens());
      }
    }
  }
}
