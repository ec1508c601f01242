package io.tensafe.chat.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Objects;

/**
 * What a request's {@code tool_choice} and {@code parallel_tool_calls} ask of the model, checked
 * (by {@code ToolOffer}): it decides ({@link Mode#AUTO}), is offered no tools ({@link Mode#NONE}),
 * must call one or more ({@link Mode#REQUIRED}) or must call {@link #function} ({@link
 * Mode#FUNCTION}). A forced choice is kept by constrained decoding ({@link ToolCallGrammar}).
 *
 * @param function the function a {@link Mode#FUNCTION} choice names; null for every other mode
 * @param parallel false when the answer may hold at most one call ({@code parallel_tool_calls:
 *     false}); a named function is always called once
 */
public record ToolChoice(Mode mode, String function, boolean parallel) {
  /** The choice when a request says nothing: the model decides, and may call several. */
  public static final ToolChoice AUTO = new ToolChoice(Mode.AUTO, null, true);

  /** The four choices OpenAI's API knows. */
  public enum Mode {
    AUTO,
    NONE,
    REQUIRED,
    FUNCTION
  }

  public ToolChoice {
    Objects.requireNonNull(mode, "mode");
    if ((mode == Mode.FUNCTION) != (function != null)) {
      throw new IllegalArgumentException("a function is named exactly by a FUNCTION choice");
    }
  }

  /** True when the model must call: a required or named choice. */
  public boolean forced() {
    return mode == Mode.REQUIRED || mode == Mode.FUNCTION;
  }

  /** The most calls an answer may hold: 1 without parallel calls or for a named function. */
  public int maxCalls() {
    return mode == Mode.FUNCTION || !parallel ? 1 : Integer.MAX_VALUE;
  }

  /** {@code tool_choice} as OpenAI writes it: a string, or the named function's object. */
  public JsonNode toJson() {
    if (mode != Mode.FUNCTION) {
      return JsonNodeFactory.instance.textNode(mode.name().toLowerCase(java.util.Locale.ROOT));
    }
    var o = JsonNodeFactory.instance.objectNode().put("type", "function");
    o.putObject("function").put("name", function);
    return o;
  }
}
