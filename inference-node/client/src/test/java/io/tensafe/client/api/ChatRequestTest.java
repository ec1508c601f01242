package io.tensafe.client.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The local endpoint reads OpenAI's chat requests and routes on what the marketplace would. */
class ChatRequestTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ChatRequest parse(String json) throws Exception {
    return ChatRequest.parse(JSON.readTree(json));
  }

  @Test
  void aRequest_isReadWithOpenAisNames() throws Exception {
    ChatRequest r =
        parse(
            "{\"model\":\"auto\",\"max_completion_tokens\":7,\"stream\":true,"
                + "\"stream_options\":{\"include_usage\":true},\"stop\":\"END\",\"messages\":["
                + "{\"role\":\"developer\",\"content\":\"be brief\"},"
                + "{\"role\":\"user\",\"content\":\"first\"},"
                + "{\"role\":\"user\",\"content\":\"mortgage?\"}]}");
    assertEquals(7, r.sampling().maxTokens());
    assertEquals("system", r.messages().get(0).get("role").asText());
    assertTrue(r.stream() && r.includeUsage());
    assertEquals(java.util.List.of("END"), r.sampling().stop());
  }

  /** Private mode decodes a forced tool choice locally, under the grammar a node would use. */
  @Test
  void forcedToolChoice_constrainsTheLocalSampling() throws Exception {
    String tools = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}]";
    ChatRequest required =
        parse(
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                + tools
                + ",\"tool_choice\":\"required\",\"parallel_tool_calls\":false}");
    var grammar = (io.tensafe.chat.tools.ToolCallGrammar) required.sampling().format();
    assertEquals(1, grammar.maxCalls());
    assertTrue(
        grammar.matches("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>"));
    ChatRequest auto =
        parse(
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                + tools
                + ",\"parallel_tool_calls\":false}");
    assertEquals(null, auto.sampling().format());
    assertEquals("</tool_call>", auto.sampling().endAfter());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            parse(
                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                    + tools
                    + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"f\"}}}"));
  }

  @Test
  void badRequests_nameTheField() {
    for (String bad :
        new String[] {
          "[]",
          "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
          "{\"model\":\"m\",\"messages\":[]}",
          "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[1]}]}",
          "{\"model\":\"m\",\"max_tokens\":0,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
          "{\"model\":\"m\",\"max_tokens\":5000,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
          "{\"model\":\"m\",\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}",
          "{\"model\":\"m\",\"frequency_penalty\":0.5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
          "{\"model\":\"m\",\"unknown\":1,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"
        }) {
      assertThrows(IllegalArgumentException.class, () -> parse(bad), bad);
    }
  }

  /** Issue 36: the same rules as the marketplace's, tools included. */
  @Test
  void toolsAndNoOpDefaults_areReadAsTheMarketplaceReadsThem() throws Exception {
    ChatRequest r =
        parse(
            "{\"model\":\"m\",\"presence_penalty\":0,\"tools\":[{\"type\":\"function\","
                + "\"function\":{\"name\":\"get_weather\"}}],\"messages\":["
                + "{\"role\":\"user\",\"content\":\"Paris?\"},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\","
                + "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{}\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"18C\"}]}");
    assertEquals("get_weather", r.tools().get(0).path("function").path("name").asText());
    assertEquals("c1", r.messages().get(2).path("tool_call_id").asText());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                parse(
                    "{\"model\":\"m\",\"tool_choice\":\"any\",\"tools\":[{\"type\":"
                        + "\"function\",\"function\":{\"name\":\"f\"}}],\"messages\":"
                        + "[{\"role\":\"user\",\"content\":\"x\"}]}"));
    assertTrue(e.getMessage().contains("tool_choice 'any'"), e.getMessage());
  }
}
