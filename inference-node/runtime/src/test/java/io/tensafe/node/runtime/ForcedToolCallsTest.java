package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.chat.json.JsonGrammar;
import io.tensafe.chat.openai.ToolOffer;
import io.tensafe.chat.tools.ToolCallAnswer;
import io.tensafe.chat.tools.ToolCallEvent;
import io.tensafe.node.tokenizer.QwenTokenizer;
import io.tensafe.tgsp.safetensors.DType;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Forced tool calls (ADR 0043) decoded on the generated tiny model, whose random weights never call
 * a tool by themselves: under {@code tool_choice: "required"} every generation that ends is a call
 * whose arguments match the tool's schema, a named function is that function, and {@code
 * parallel_tool_calls: false} gives one call. Also {@link SamplingParameters#endAfter}.
 */
class ForcedToolCallsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PROMPT =
      ChatMessage.chatMl(List.of(new ChatMessage("user", "What is the weather in Paris?")));
  private static final String WEATHER =
      "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\",\"enum\":[\"Paris\","
          + "\"Oslo\"]},\"unit\":{\"enum\":[\"C\",\"F\"]},\"days\":{\"type\":\"integer\"}},"
          + "\"required\":[\"city\",\"unit\"],\"additionalProperties\":false}";
  private static final String TOOLS =
      "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
          + WEATHER
          + "}},{\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"parameters\":"
          + "{\"type\":\"object\",\"properties\":{\"utc\":{\"type\":\"boolean\"}},"
          + "\"required\":[\"utc\"],\"additionalProperties\":false}}}]";

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

  private static ToolOffer offer(String toolChoice, boolean parallel) throws Exception {
    return ToolOffer.parse(
        JSON.readTree(
            "{\"tools\":"
                + TOOLS
                + ",\"tool_choice\":"
                + toolChoice
                + ",\"parallel_tool_calls\":"
                + parallel
                + "}"));
  }

  private static List<ToolCallEvent.Call> calls(ToolOffer offer, long seed) {
    SamplingParameters p =
        new SamplingParameters(1.0, 0, 1, seed, 200, List.of())
            .withFormat(offer.forced())
            .withEndAfter(offer.endAfter());
    Generation g = generator.generate(PROMPT, p, s -> {});
    assertEquals("stop", g.finishReason(), g.text());
    List<ToolCallEvent> events = ToolCallAnswer.events(g.text(), "0123456789abcdef");
    assertTrue(events.stream().allMatch(e -> e instanceof ToolCallEvent.Call), g.text());
    return events.stream().map(e -> (ToolCallEvent.Call) e).toList();
  }

  @Test
  void required_parallelFalse_oneCallWhoseArgumentsMatchTheSchema() throws Exception {
    JsonGrammar weather = JsonGrammar.ofSchema(JSON.readTree(WEATHER), "w", "w");
    for (long seed = 1; seed <= 3; seed++) {
      List<ToolCallEvent.Call> calls = calls(offer("\"required\"", false), seed);
      assertEquals(1, calls.size(), calls.toString());
      ToolCallEvent.Call call = calls.getFirst();
      JsonNode arguments = JSON.readTree(call.arguments());
      if (call.name().equals("get_weather")) {
        assertTrue(weather.matches(call.arguments()), call.arguments());
        assertTrue(List.of("Paris", "Oslo").contains(arguments.get("city").asText()));
      } else {
        assertEquals("get_time", call.name());
        assertTrue(arguments.get("utc").isBoolean(), call.arguments());
      }
    }
  }

  @Test
  void namedFunction_isTheFunctionCalled() throws Exception {
    for (long seed = 4; seed <= 5; seed++) {
      List<ToolCallEvent.Call> calls =
          calls(offer("{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}", true), seed);
      assertEquals(1, calls.size());
      assertEquals("get_time", calls.getFirst().name());
      assertTrue(JSON.readTree(calls.getFirst().arguments()).get("utc").isBoolean());
    }
  }

  @Test
  void endAfter_textEndsAtItsFirstOccurrence_included() {
    SamplingParameters free = new SamplingParameters(0, 0, 1, 0, 12, List.of());
    String text = generator.generate(PROMPT, free, s -> {}).text();
    String end = text.substring(2, 4);
    StringBuilder streamed = new StringBuilder();
    Generation g = generator.generate(PROMPT, free.withEndAfter(end), streamed::append);
    assertEquals("stop", g.finishReason());
    assertEquals(text.substring(0, text.indexOf(end) + end.length()), g.text());
    assertEquals(g.text(), streamed.toString());
  }
}
