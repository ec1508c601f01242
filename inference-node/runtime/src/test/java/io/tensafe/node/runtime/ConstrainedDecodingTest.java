package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.chat.json.JsonGrammar;
import io.tensafe.chat.json.ResponseFormat;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Constrained decoding on the generated tiny model (random weights, so its free output is noise):
 * under a response_format, every generation that ends by itself parses and matches the schema, and
 * one that runs to max_tokens is a valid prefix.
 */
class ConstrainedDecodingTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PROMPT =
      ChatMessage.chatMl(List.of(new ChatMessage("user", "Answer in JSON.")));
  private static final String SCHEMA =
      "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"answer\",\"strict\":true,"
          + "\"schema\":{\"type\":\"object\",\"properties\":{"
          + "\"ok\":{\"type\":\"boolean\"},"
          + "\"n\":{\"type\":\"integer\"},"
          + "\"kind\":{\"enum\":[\"cat\",\"dog\",null]},"
          + "\"xs\":{\"type\":\"array\",\"items\":{\"type\":\"number\"}}},"
          + "\"required\":[\"ok\",\"n\",\"kind\"],\"additionalProperties\":false}}}";

  private static TinyModel model;
  private static QwenTokenizer tokenizer;
  private static TextGenerator generator;

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

  private static JsonGrammar format(String json) throws Exception {
    return ResponseFormat.parse(JSON.readTree(json)).grammar();
  }

  private static Generation run(JsonGrammar g, long seed, int maxTokens) {
    SamplingParameters p =
        new SamplingParameters(1.0, 0, 1, seed, maxTokens, List.of()).withFormat(g);
    long t0 = System.nanoTime();
    Generation out = generator.generate(PROMPT, p, s -> {});
    System.out.printf(
        "%s seed %d: %d tokens, %.1f ms/token, %s: %s%n",
        g,
        seed,
        out.completionTokens(),
        (System.nanoTime() - t0) / 1e6 / out.completionTokens(),
        out.finishReason(),
        out.text().length() > 200 ? out.text().substring(0, 200) + "..." : out.text());
    return out;
  }

  @Test
  void generate_jsonSchema_everySeedParsesAndMatches() throws Exception {
    JsonGrammar g = format(SCHEMA);
    for (long seed = 1; seed <= 3; seed++) {
      Generation out = run(g, seed, 300);
      assertEquals("stop", out.finishReason(), out.text());
      JsonNode v = JSON.readTree(out.text());
      assertTrue(v.get("ok").isBoolean(), out.text());
      assertTrue(v.get("n").isIntegralNumber(), out.text());
      assertTrue(v.get("kind").isNull() || List.of("cat", "dog").contains(v.get("kind").asText()));
      if (v.has("xs")) {
        v.get("xs").forEach(x -> assertTrue(x.isNumber(), out.text()));
      }
      assertTrue(g.matches(out.text()));
    }
  }

  /**
   * The random model rarely closes a string (few of its ~150k tokens hold a quote), so json_object
   * output often runs to max_tokens here; what is produced is still always a valid prefix, and
   * whole when it ends by itself. (The chat library's random walks show every prefix completes.)
   */
  @Test
  void generate_jsonObject_alwaysAValidPrefixAndAnObjectWhenEnded() throws Exception {
    JsonGrammar g = JsonGrammar.anyObject();
    for (long seed = 1; seed <= 2; seed++) {
      Generation out = run(g, seed, 120);
      assertTrue(g.start().feed(out.text()), out.text());
      if (out.finishReason().equals("stop")) {
        assertTrue(JSON.readTree(out.text()).isObject(), out.text());
      }
    }
  }

  @Test
  void generate_sameSeed_sameConstrainedText() throws Exception {
    JsonGrammar g = format(SCHEMA);
    assertEquals(run(g, 9, 30), run(g, 9, 30));
  }
}
