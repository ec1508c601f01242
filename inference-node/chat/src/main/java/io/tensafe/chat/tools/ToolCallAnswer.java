package io.tensafe.chat.tools;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * An answer to a request that offered tools, in OpenAI's JSON: the model's text read by {@link
 * ToolCallStream}, its calls as {@code tool_calls} (whole, or one stream delta per call with its
 * name and complete arguments), and {@code finish_reason} {@code "tool_calls"} when the model
 * stopped after calling. One rule for the marketplace and the private client.
 */
public final class ToolCallAnswer {
  private ToolCallAnswer() {}

  /** A reader for one answer; call ids are {@code call_<first 16 hex of the id>_<index>}. */
  public static ToolCallStream reader(String answerId) {
    String hex = answerId.replaceAll("[^0-9a-fA-F]", "");
    return new ToolCallStream("call_" + hex.substring(0, Math.min(16, hex.length())) + "_");
  }

  /**
   * The assistant message of a whole answer {@code text}: {@code role}, {@code content} (null when
   * the model only called) and {@code tool_calls} when it called.
   */
  public static ObjectNode message(String text, String answerId) {
    List<ToolCallEvent> events = events(text, answerId);
    ObjectNode message = JsonNodeFactory.instance.objectNode().put("role", "assistant");
    StringBuilder content = new StringBuilder();
    ArrayNode calls = JsonNodeFactory.instance.arrayNode();
    for (ToolCallEvent e : events) {
      switch (e) {
        case ToolCallEvent.Content c -> content.append(c.text());
        case ToolCallEvent.Call call -> calls.add(call(call, false));
      }
    }
    if (!calls.isEmpty() && content.toString().isBlank()) {
      message.putNull("content");
    } else {
      message.put("content", content.toString());
    }
    if (!calls.isEmpty()) {
      message.set("tool_calls", calls);
    }
    return message;
  }

  /** The events of a whole answer {@code text}. */
  public static List<ToolCallEvent> events(String text, String answerId) {
    ToolCallStream reader = reader(answerId);
    List<ToolCallEvent> events = new ArrayList<>(reader.feed(text));
    events.addAll(reader.finish());
    return events;
  }

  /**
   * The text {@code events} deliver, written as the model writes it: content as it is, and each
   * call as one block of its name and arguments ({@code <tool_call>\n{"name": ..., "arguments":
   * ...}\n</tool_call>}), whatever else the model's block held. What a relay bills for an answer
   * that offered tools: the client receives the name and arguments, never the rest of the block.
   */
  public static String delivered(List<ToolCallEvent> events) {
    StringBuilder text = new StringBuilder();
    for (ToolCallEvent e : events) {
      switch (e) {
        case ToolCallEvent.Content c -> text.append(c.text());
        case ToolCallEvent.Call call ->
            text.append(ToolCallStream.OPEN)
                .append("\n{\"name\": ")
                .append(JsonNodeFactory.instance.textNode(call.name()))
                .append(", \"arguments\": ")
                .append(call.arguments())
                .append("}\n")
                .append(ToolCallStream.CLOSE);
      }
    }
    return text.toString();
  }

  /** The stream delta of one call: {@code {"tool_calls": [{index, id, type, function}]}}. */
  public static ObjectNode delta(ToolCallEvent.Call call) {
    ObjectNode delta = JsonNodeFactory.instance.objectNode();
    delta.putArray("tool_calls").add(call(call, true));
    return delta;
  }

  /** The finish reason: {@code tool_calls} when the model stopped after calling. */
  public static String finishReason(String model, boolean called) {
    return called && model.equals("stop") ? "tool_calls" : model;
  }

  private static ObjectNode call(ToolCallEvent.Call call, boolean indexed) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    if (indexed) {
      o.put("index", call.index());
    }
    o.put("id", call.id()).put("type", "function");
    o.putObject("function").put("name", call.name()).put("arguments", call.arguments());
    return o;
  }
}
