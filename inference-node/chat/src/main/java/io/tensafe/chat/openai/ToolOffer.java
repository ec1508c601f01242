package io.tensafe.chat.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tensafe.chat.json.JsonGrammar;
import io.tensafe.chat.json.ResponseFormatException;
import io.tensafe.chat.tools.ToolCallGrammar;
import io.tensafe.chat.tools.ToolCallStream;
import io.tensafe.chat.tools.ToolChoice;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The tools a chat request offers the model, checked: {@code tools} (OpenAI's function tools,
 * {@code {"type": "function", "function": {"name", "description", "parameters", "strict"}}}),
 * {@code tool_choice} and {@code parallel_tool_calls}. The model sees the tools through its chat
 * template and answers with tool calls that the marketplace reads out of its text. One rule for the
 * marketplace, the node (which is forwarded the three fields) and the private client.
 *
 * <ul>
 *   <li>{@code tool_choice}: {@code "auto"} (the default with tools) offers them; {@code "none"}
 *       offers none (the template renders no tools, the answer is text); {@code "required"} and
 *       {@code {"type": "function", "function": {"name": ...}}} force a call by constrained
 *       decoding over {@link ToolCallGrammar} (ADR 0043), with the callable functions' {@code
 *       parameters} compiled as JSON mode compiles a json_schema (the same subset; a schema outside
 *       it is refused naming its keyword). A named function must be among {@code tools}.
 *   <li>{@code parallel_tool_calls}: a boolean; {@code false} allows at most one call: a forced
 *       choice's grammar holds one block, and under {@code "auto"} generation ends after the first
 *       call's closing tag ({@link #endAfter}).
 * </ul>
 *
 * @param tools the tools offered to the model, as sent; null when none is (no tools, an empty list,
 *     or {@code tool_choice: "none"})
 * @param choice what the model must do with them ({@link ToolChoice#AUTO} when nothing was said)
 * @param forced the language a forced choice constrains the answer to; null unless {@link
 *     ToolChoice#forced}
 */
public record ToolOffer(ArrayNode tools, ToolChoice choice, ToolCallGrammar forced) {
  /** Tools a request may offer. */
  public static final int MAX_TOOLS = 128;

  /** Nothing offered. */
  public static final ToolOffer NONE = new ToolOffer(null, ToolChoice.AUTO, null);

  private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
  private static final Set<String> TOOL_FIELDS = Set.of("type", "function");
  private static final Set<String> FUNCTION_FIELDS =
      Set.of("name", "description", "parameters", "strict");

  /**
   * The text after whose first occurrence generation ends: the first call's closing tag when {@code
   * parallel_tool_calls: false} leaves the model free to call ({@code "auto"}); null when the
   * answer may hold several calls, or when the forced grammar already holds one.
   */
  public String endAfter() {
    return tools != null && !choice.parallel() && !choice.forced() ? ToolCallStream.CLOSE : null;
  }

  /** Reads the three fields of a chat body. Throws naming the field at fault. */
  public static ToolOffer parse(JsonNode body) throws InvalidRequestException {
    return of(body.get("tools"), body.get("tool_choice"), body.get("parallel_tool_calls"));
  }

  /**
   * Reads {@code tools}, {@code tool_choice} and {@code parallel_tool_calls} (each null when
   * absent). Throws naming the field at fault.
   */
  public static ToolOffer of(JsonNode tools, JsonNode choiceField, JsonNode parallelField)
      throws InvalidRequestException {
    if (parallelField != null && !parallelField.isNull() && !parallelField.isBoolean()) {
      throw new InvalidRequestException(
          "parallel_tool_calls", "parallel_tool_calls must be a boolean");
    }
    boolean parallel = parallelField == null || parallelField.isNull() || parallelField.asBoolean();
    ToolChoice choice = choice(choiceField, parallel);
    boolean offered = tools != null && !tools.isNull() && !(tools.isArray() && tools.isEmpty());
    if (!offered) {
      if (choice.forced()) {
        throw new InvalidRequestException(
            "tool_choice",
            "tool_choice "
                + choice.toJson()
                + " forces a tool call, but the request offers no tools");
      }
      return NONE;
    }
    if (!tools.isArray() || tools.size() > MAX_TOOLS) {
      throw new InvalidRequestException(
          "tools", "tools must be an array of at most " + MAX_TOOLS + " function tools");
    }
    for (int i = 0; i < tools.size(); i++) {
      check(tools.get(i), "tools[" + i + "]");
    }
    if (choice.mode() == ToolChoice.Mode.NONE) {
      return NONE;
    }
    return new ToolOffer((ArrayNode) tools, choice, choice.forced() ? forced(tools, choice) : null);
  }

  private static ToolChoice choice(JsonNode c, boolean parallel) throws InvalidRequestException {
    if (c == null || c.isNull()) {
      return new ToolChoice(ToolChoice.Mode.AUTO, null, parallel);
    }
    if (c.isTextual()) {
      return switch (c.asText()) {
        case "auto" -> new ToolChoice(ToolChoice.Mode.AUTO, null, parallel);
        case "none" -> new ToolChoice(ToolChoice.Mode.NONE, null, parallel);
        case "required" -> new ToolChoice(ToolChoice.Mode.REQUIRED, null, parallel);
        default ->
            throw new InvalidRequestException(
                "tool_choice",
                "tool_choice '"
                    + c.asText()
                    + "' is not one of \"auto\", \"none\", \"required\" or"
                    + " {\"type\": \"function\", \"function\": {\"name\": ...}}");
      };
    }
    String shape =
        "tool_choice must be \"auto\", \"none\", \"required\" or {\"type\": \"function\","
            + " \"function\": {\"name\": ...}}";
    if (!c.isObject()
        || c.size() != 2
        || !"function".equals(c.path("type").asText(null))
        || !c.path("function").isObject()
        || c.get("function").size() != 1
        || !c.get("function").path("name").isTextual()) {
      throw new InvalidRequestException("tool_choice", shape);
    }
    String name = c.get("function").get("name").asText();
    if (!NAME.matcher(name).matches()) {
      throw new InvalidRequestException(
          "tool_choice", "tool_choice.function.name must be 1 to 64 letters, digits, _ or -");
    }
    return new ToolChoice(ToolChoice.Mode.FUNCTION, name, parallel);
  }

  /**
   * The forced choice's grammar: the callable functions (all, or the named one) with their
   * parameters compiled.
   */
  private static ToolCallGrammar forced(JsonNode tools, ToolChoice choice)
      throws InvalidRequestException {
    List<ToolCallGrammar.Callable> callable = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < tools.size(); i++) {
      JsonNode f = tools.get(i).get("function");
      String name = f.get("name").asText();
      if (!seen.add(name)) {
        throw new InvalidRequestException(
            "tools[" + i + "].function.name",
            "tools offers function " + name + " twice; a forced tool_choice needs distinct names");
      }
      if (choice.mode() == ToolChoice.Mode.FUNCTION && !name.equals(choice.function())) {
        continue;
      }
      String at = "tools[" + i + "].function.parameters";
      JsonNode parameters = f.get("parameters");
      try {
        callable.add(
            new ToolCallGrammar.Callable(
                name,
                parameters == null
                    ? JsonGrammar.anyObject()
                    : JsonGrammar.ofSchema(parameters, at, "arguments of " + name)));
      } catch (ResponseFormatException e) {
        throw new InvalidRequestException(
            e.path(),
            e.getMessage()
                + " (tool_choice "
                + choice.toJson()
                + " constrains the call's arguments to the schema, in JSON mode's subset)");
      }
    }
    if (callable.isEmpty()) {
      throw new InvalidRequestException(
          "tool_choice",
          "tool_choice names function '" + choice.function() + "', which is not among tools");
    }
    return new ToolCallGrammar(callable, choice.maxCalls());
  }

  private static void check(JsonNode tool, String at) throws InvalidRequestException {
    if (!tool.isObject()) {
      throw new InvalidRequestException(at, at + " must be an object");
    }
    onlyFields(tool, TOOL_FIELDS, at);
    if (!"function".equals(tool.path("type").asText())) {
      throw new InvalidRequestException(
          at + ".type", at + ".type must be \"function\" (the only tool type supported)");
    }
    JsonNode f = tool.path("function");
    if (!f.isObject()) {
      throw new InvalidRequestException(at + ".function", at + ".function must be an object");
    }
    onlyFields(f, FUNCTION_FIELDS, at + ".function");
    if (!f.path("name").isTextual() || !NAME.matcher(f.get("name").asText()).matches()) {
      throw new InvalidRequestException(
          at + ".function.name",
          at + ".function.name must be 1 to 64 letters, digits, underscores or dashes");
    }
    if (f.has("description") && !f.get("description").isTextual()) {
      throw new InvalidRequestException(
          at + ".function.description", at + ".function.description must be a string");
    }
    if (f.has("parameters") && !f.get("parameters").isObject()) {
      throw new InvalidRequestException(
          at + ".function.parameters", at + ".function.parameters must be a JSON Schema object");
    }
    if (f.has("strict") && !f.get("strict").isBoolean()) {
      throw new InvalidRequestException(
          at + ".function.strict", at + ".function.strict must be a boolean");
    }
  }

  private static void onlyFields(JsonNode o, Set<String> allowed, String at)
      throws InvalidRequestException {
    for (Iterator<String> names = o.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw new InvalidRequestException(
            at + "." + name, "unsupported field '" + name + "' in " + at);
      }
    }
  }
}
