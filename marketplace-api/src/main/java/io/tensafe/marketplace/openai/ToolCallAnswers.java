package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tensafe.chat.tools.ToolCallEvent;
import io.tensafe.chat.tools.ToolCallStream;
import java.util.List;

/**
 * An answer to a request that offered tools, in OpenAI's form: the model's text read by {@link
 * ToolCallStream} (one rule with the private client), calls as {@code tool_calls} (whole, or one
 * stream chunk per call with its name and complete arguments), and {@code finish_reason} {@code
 * "tool_calls"} when the model stopped after calling. Ids are {@code call_<request>_<index>}.
 */
final class ToolCallAnswers {
  private ToolCallAnswers() {}

  /** A reader for one answer of request {@code requestId}. */
  static ToolCallStream reader(String requestId) {
    return new ToolCallStream("call_" + requestId.replace("-", "").substring(0, 16) + "_");
  }

  /**
   * Fills {@code message} ({@code role} already set) from the whole answer {@code text}.
   *
   * @return whether the model called a tool
   */
  static boolean whole(ObjectNode message, String text, String requestId) {
    ToolCallStream reader = reader(requestId);
    List<ToolCallEvent> events = new java.util.ArrayList<>(reader.feed(text));
    events.addAll(reader.finish());
    StringBuilder content = new StringBuilder();
    ArrayNode calls = null;
    for (ToolCallEvent e : events) {
      switch (e) {
        case ToolCallEvent.Content c -> content.append(c.text());
        case ToolCallEvent.Call call -> {
          if (calls == null) {
            calls = message.putArray("tool_calls");
          }
          calls.add(call(call, false, message.objectNode()));
        }
      }
    }
    if (calls != null && content.toString().isBlank()) {
      message.putNull("content");
    } else {
      message.put("content", content.toString());
    }
    return calls != null;
  }

  /** The stream chunk of one call ({@code envelope}: the request's chunk envelope, copied). */
  static ObjectNode chunk(ObjectMapper json, ObjectNode envelope, ToolCallEvent.Call call) {
    ObjectNode chunk = envelope.deepCopy();
    ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
    choice.putObject("delta").putArray("tool_calls").add(call(call, true, json.createObjectNode()));
    choice.putNull("finish_reason");
    return chunk;
  }

  /** The finish reason: {@code tool_calls} when the model stopped after calling. */
  static String finishReason(String node, boolean called) {
    return called && node.equals("stop") ? "tool_calls" : node;
  }

  private static ObjectNode call(ToolCallEvent.Call call, boolean indexed, ObjectNode o) {
    if (indexed) {
      o.put("index", call.index());
    }
    o.put("id", call.id()).put("type", "function");
    o.putObject("function").put("name", call.name()).put("arguments", call.arguments());
    return o;
  }
}
