package io.tensafe.chat.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * An assistant message's {@code tool_calls} as a client sends them back in a conversation: each
 * {@code {"id", "type": "function", "function": {"name", "arguments"}}}, arguments a JSON text
 * (OpenAI's form). Normalised to exactly those fields.
 */
final class ToolCallMessages {
  /** Calls one message may carry. */
  static final int MAX_CALLS = 128;

  private ToolCallMessages() {}

  /** The checked calls; throws naming the field at fault. */
  static ArrayNode calls(JsonNode calls, String at) throws InvalidRequestException {
    if (!calls.isArray() || calls.size() > MAX_CALLS) {
      throw new InvalidRequestException(
          at, at + " must be an array of at most " + MAX_CALLS + " calls");
    }
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    for (int i = 0; i < calls.size(); i++) {
      JsonNode c = calls.get(i);
      String callAt = at + "[" + i + "]";
      JsonNode f = c.path("function");
      if (!c.path("id").isTextual()
          || !"function".equals(c.path("type").asText("function"))
          || !f.path("name").isTextual()
          || !f.path("arguments").isTextual()) {
        throw new InvalidRequestException(
            callAt,
            callAt
                + " must be {\"id\": string, \"type\": \"function\", \"function\": {\"name\":"
                + " string, \"arguments\": string}}");
      }
      out.addObject()
          .put("id", c.get("id").asText())
          .put("type", "function")
          .putObject("function")
          .put("name", f.get("name").asText())
          .put("arguments", f.get("arguments").asText());
    }
    return out;
  }
}
