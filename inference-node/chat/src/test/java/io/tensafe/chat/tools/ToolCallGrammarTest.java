package io.tensafe.chat.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.chat.json.JsonGrammar;
import io.tensafe.chat.openai.ToolOffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The forced tool-call language: what it accepts, what it refuses, and that every walk through it
 * that ends is calls whose names were offered and whose arguments match their schemas.
 */
class ToolCallGrammarTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WEATHER =
      "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
          + "\"days\":{\"type\":\"integer\"},\"unit\":{\"enum\":[\"C\",\"F\"]}},"
          + "\"required\":[\"city\",\"unit\"],\"additionalProperties\":false}";
  private static final String TIME =
      "{\"type\":\"object\",\"properties\":{\"zone\":{\"type\":\"string\"}},"
          + "\"required\":[\"zone\"],\"additionalProperties\":false}";

  private static JsonNode body(String toolChoice, Boolean parallel) throws Exception {
    String tools =
        "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
            + WEATHER
            + "}},{\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"parameters\":"
            + TIME
            + "}},{\"type\":\"function\",\"function\":{\"name\":\"get\"}}]";
    return JSON.readTree(
        "{\"tools\":"
            + tools
            + ",\"tool_choice\":"
            + toolChoice
            + (parallel == null ? "" : ",\"parallel_tool_calls\":" + parallel)
            + "}");
  }

  private static ToolCallGrammar grammar(String toolChoice, Boolean parallel) throws Exception {
    return ToolOffer.parse(body(toolChoice, parallel)).forced();
  }

  private static String call(String name, String arguments) {
    return "<tool_call>\n{\"name\": \""
        + name
        + "\", \"arguments\": "
        + arguments
        + "}\n</tool_call>";
  }

  @Test
  void required_aCallMatchingItsSchema_isAWholeWord() throws Exception {
    ToolCallGrammar g = grammar("\"required\"", null);
    assertTrue(g.matches(call("get_weather", "{\"city\": \"Paris\", \"unit\": \"C\"}")));
    assertTrue(g.matches(call("get_time", "{\"zone\":\"UTC\"}")));
    assertTrue(g.matches(call("get", "{\"any\": [1, {\"x\": null}]}")));
    assertTrue(
        g.matches(
            call("get_time", "{\"zone\":\"UTC\"}")
                + "\n"
                + call("get_weather", "{\"city\":\"Oslo\",\"days\":3,\"unit\":\"F\"}")));
  }

  @Test
  void required_textOrBadArguments_refused() throws Exception {
    ToolCallGrammar g = grammar("\"required\"", null);
    assertFalse(g.start().feed("Sure"), "free text before the call");
    assertFalse(g.matches(""), "no call at all");
    assertFalse(g.start().feed(call("get_weather", "{\"unit\": \"C\"")), "required city missing");
    assertFalse(g.start().feed(call("get_weather", "{\"city\": 3")), "city of the wrong type");
    assertFalse(g.start().feed(call("get_wether", "{}")), "a name not offered");
    assertFalse(g.start().feed(call("get_time", "{\"zone\":\"UTC\",\"x\":1}")), "closed object");
    assertFalse(g.matches(call("get_time", "{\"zone\":\"UTC\"}") + "\n"), "an unfinished second");
  }

  @Test
  void named_onlyThatFunction() throws Exception {
    ToolCallGrammar g =
        grammar("{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}", null);
    assertTrue(g.matches(call("get_time", "{\"zone\":\"CET\"}")));
    assertFalse(g.start().feed(call("get_weather", "{")), "another function");
    assertFalse(g.start().feed(call("get\"", "{")), "a prefix of the name");
    assertFalse(
        g.start().feed(call("get_time", "{\"zone\":\"CET\"}") + "\n"), "a named function once");
  }

  @Test
  void parallelFalse_oneCallOnly() throws Exception {
    ToolCallGrammar g = grammar("\"required\"", false);
    assertEquals(1, g.maxCalls());
    ToolCallPrefix p = g.start();
    assertTrue(p.feed(call("get_time", "{\"zone\":\"UTC\"}")));
    assertTrue(p.complete());
    assertEquals(1, p.calls());
    assertFalse(p.feed('\n'), "a second call");
    assertTrue(grammar("\"required\"", true).start().feed(call("get", "{}") + "\n<tool_call>"));
  }

  @Test
  void copyFrom_carriesTheArgumentsState() throws Exception {
    ToolCallGrammar g = grammar("\"required\"", null);
    ToolCallPrefix p = g.start();
    assertTrue(p.feed(call("get_weather", "{\"city\": \"Pa").replace("}\n</tool_call>", "")));
    ToolCallPrefix copy = g.start();
    copy.copyFrom(p);
    assertTrue(copy.feed("ris\", \"unit\": \"F\"}}\n</tool_call>"));
    assertTrue(copy.complete());
    assertFalse(p.complete());
    assertThrows(IllegalArgumentException.class, () -> p.copyFrom(JsonGrammar.anyObject().start()));
  }

  /**
   * Constrained decoding's invariant for this language: from every accepted prefix some char goes
   * on until the calls are whole. Random walks over an alphabet, picking only accepted chars, end
   * in text that {@link ToolCallStream} reads as 1 to maxCalls calls of offered functions whose
   * arguments parse and match their schemas.
   */
  @Test
  void randomWalk_required_endsInCallsMatchingTheirSchemas() throws Exception {
    walk(grammar("\"required\"", null), List.of("get_weather", "get_time", "get"), 1000);
    walk(grammar("\"required\"", false), List.of("get_weather", "get_time", "get"), 1);
    walk(
        grammar("{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}", true),
        List.of("get_weather"),
        1);
  }

  private static void walk(ToolCallGrammar g, List<String> names, int maxCalls) throws Exception {
    String alphabet = "<>/_{}[]\",:0123456789.- \nabcdefghijklmnopqrstuvwxyzCF";
    JsonGrammar weather = JsonGrammar.ofSchema(JSON.readTree(WEATHER), "w", "w");
    JsonGrammar time = JsonGrammar.ofSchema(JSON.readTree(TIME), "t", "t");
    SplittableRandom random = new SplittableRandom(11);
    for (int walk = 0; walk < 200; walk++) {
      ToolCallPrefix p = g.start();
      ToolCallPrefix probe = g.start();
      StringBuilder text = new StringBuilder();
      for (int step = 0; !p.complete() || random.nextInt(3) != 0; step++) {
        List<Character> next = new ArrayList<>();
        for (char c : alphabet.toCharArray()) {
          probe.copyFrom(p);
          if (probe.feed(c)) {
            next.add(c);
          }
        }
        if (next.isEmpty()) {
          break;
        }
        char c = next.get(random.nextInt(next.size()));
        if (step > 150) {
          // Head for the end: closing chars first.
          for (char x : "\"}]>".toCharArray()) {
            if (next.contains(x)) {
              c = x;
              break;
            }
          }
        }
        assertTrue(p.feed(c));
        text.append(c);
        assertTrue(step < 5_000, () -> "walk does not end: " + text.substring(0, 300));
      }
      assertTrue(p.complete(), () -> "dead end: " + text);
      List<ToolCallEvent> events = ToolCallAnswer.events(text.toString(), "0123456789abcdef");
      assertTrue(
          events.stream().allMatch(e -> e instanceof ToolCallEvent.Call), () -> "content: " + text);
      assertTrue(events.size() >= 1 && events.size() <= maxCalls, text::toString);
      for (ToolCallEvent e : events) {
        ToolCallEvent.Call call = (ToolCallEvent.Call) e;
        assertTrue(names.contains(call.name()), call.name());
        JsonNode arguments = JSON.readTree(call.arguments());
        assertTrue(arguments.isObject(), call.arguments());
        switch (call.name()) {
          case "get_weather" -> assertTrue(weather.matches(call.arguments()), call.arguments());
          case "get_time" -> assertTrue(time.matches(call.arguments()), call.arguments());
          default -> assertTrue(JsonGrammar.anyObject().matches(call.arguments()));
        }
      }
    }
  }
}
