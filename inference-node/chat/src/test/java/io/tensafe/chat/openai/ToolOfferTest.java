package io.tensafe.chat.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.chat.tools.ToolCallStream;
import io.tensafe.chat.tools.ToolChoice;
import org.junit.jupiter.api.Test;

/** {@code tools}, {@code tool_choice} and {@code parallel_tool_calls}: read, or refused by name. */
class ToolOfferTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOOLS =
      "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
          + "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}]";

  private static ToolOffer parse(String json) throws Exception {
    return ToolOffer.parse(JSON.readTree(json));
  }

  private static String refusedParam(String json) throws Exception {
    JsonNode body = JSON.readTree(json);
    return assertThrows(InvalidRequestException.class, () -> ToolOffer.parse(body)).param();
  }

  @Test
  void parse_choices_readAsSent() throws Exception {
    ToolOffer auto = parse("{\"tools\":" + TOOLS + "}");
    assertEquals(ToolChoice.Mode.AUTO, auto.choice().mode());
    assertNull(auto.forced());
    assertNull(auto.endAfter());
    assertNull(parse("{\"tools\":" + TOOLS + ",\"tool_choice\":\"none\"}").tools());
    ToolOffer required = parse("{\"tools\":" + TOOLS + ",\"tool_choice\":\"required\"}");
    assertTrue(required.choice().forced());
    assertEquals(Integer.MAX_VALUE, required.forced().maxCalls());
    ToolOffer named =
        parse(
            "{\"tools\":"
                + TOOLS
                + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}}");
    assertEquals("get_weather", named.choice().function());
    assertEquals(1, named.forced().maxCalls());
    assertEquals(
        JSON.readTree("{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}"),
        named.choice().toJson());
  }

  @Test
  void parallelFalse_autoEndsAfterTheFirstCall_forcedHoldsOne() throws Exception {
    ToolOffer auto = parse("{\"tools\":" + TOOLS + ",\"parallel_tool_calls\":false}");
    assertEquals(ToolCallStream.CLOSE, auto.endAfter());
    ToolOffer required =
        parse(
            "{\"tools\":" + TOOLS + ",\"tool_choice\":\"required\",\"parallel_tool_calls\":false}");
    assertEquals(1, required.forced().maxCalls());
    assertNull(required.endAfter(), "the grammar holds one call already");
  }

  @Test
  void parse_badValues_refusedNamingTheParameter() throws Exception {
    assertEquals(
        "tool_choice",
        refusedParam(
            "{\"tools\":"
                + TOOLS
                + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"nope\"}}}"));
    assertEquals("tool_choice", refusedParam("{\"tool_choice\":\"required\"}"));
    assertEquals("tool_choice", refusedParam("{\"tools\":" + TOOLS + ",\"tool_choice\":\"any\"}"));
    assertEquals(
        "tool_choice",
        refusedParam("{\"tools\":" + TOOLS + ",\"tool_choice\":{\"type\":\"function\"}}"));
    assertEquals(
        "parallel_tool_calls",
        refusedParam("{\"tools\":" + TOOLS + ",\"parallel_tool_calls\":\"no\"}"));
    assertEquals(
        "tools[0].function.parameters.properties.n.minimum",
        refusedParam(
            "{\"tool_choice\":\"required\",\"tools\":[{\"type\":\"function\",\"function\":"
                + "{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":"
                + "{\"n\":{\"type\":\"integer\",\"minimum\":1}}}}}]}"));
    assertEquals(
        "tools[1].function.name",
        refusedParam(
            "{\"tool_choice\":\"required\",\"tools\":["
                + "{\"type\":\"function\",\"function\":{\"name\":\"f\"}},"
                + "{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]}"));
  }

  @Test
  void auto_schemaOutsideTheSubset_stillOffered() throws Exception {
    ToolOffer auto =
        parse(
            "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
                + "{\"type\":\"object\",\"properties\":{\"n\":{\"minimum\":1}}}}}]}");
    assertEquals(1, auto.tools().size());
  }
}
