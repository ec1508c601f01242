package io.tensafe.chat.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.Iterator;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The tools a chat request offers the model, checked: {@code tools} (OpenAI's function tools,
 * {@code {"type": "function", "function": {"name", "description", "parameters", "strict"}}}),
 * {@code tool_choice} and {@code parallel_tool_calls}. The model sees the tools through its chat
 * template and answers with tool calls that the marketplace reads out of its text.
 *
 * <ul>
 *   <li>{@code tool_choice}: {@code "auto"} (the default with tools) offers them; {@code "none"}
 *       offers none (the template renders no tools, the answer is text). {@code "required"} and a
 *       named function would need the model forced to call, which is not built: refused by name.
 *   <li>{@code parallel_tool_calls}: a boolean; the model may make several calls either way (Qwen's
 *       templates ask for "one or more"), so {@code false} is accepted but not enforced (ADR 0030).
 * </ul>
 */
public final class ToolOffer {
  /** Tools a request may offer. */
  public static final int MAX_TOOLS = 128;

  private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
  private static final Set<String> TOOL_FIELDS = Set.of("type", "function");
  private static final Set<String> FUNCTION_FIELDS =
      Set.of("name", "description", "parameters", "strict");

  private ToolOffer() {}

  /**
   * The tools the model is offered, as sent; null when none is (no tools, an empty list, or {@code
   * tool_choice: "none"}). Throws naming the field at fault.
   */
  public static ArrayNode parse(JsonNode body) throws InvalidRequestException {
    JsonNode tools = body.get("tools");
    JsonNode choice = body.get("tool_choice");
    JsonNode parallel = body.get("parallel_tool_calls");
    if (parallel != null && !parallel.isNull() && !parallel.isBoolean()) {
      throw new InvalidRequestException(
          "parallel_tool_calls", "parallel_tool_calls must be a boolean");
    }
    boolean offered = tools != null && !tools.isNull() && !(tools.isArray() && tools.isEmpty());
    String mode = choice == null || choice.isNull() ? "auto" : choice.asText(null);
    if (choice != null && !choice.isNull() && !choice.isTextual()) {
      throw new InvalidRequestException(
          "tool_choice",
          "tool_choice naming a function is not supported: the model decides (\"auto\") or is"
              + " offered no tools (\"none\")");
    }
    if (!Set.of("auto", "none").contains(mode)) {
      throw new InvalidRequestException(
          "tool_choice",
          "tool_choice '"
              + mode
              + "' is not supported: the model decides (\"auto\") or is offered no tools"
              + " (\"none\")");
    }
    if (!offered) {
      return null;
    }
    if (!tools.isArray() || tools.size() > MAX_TOOLS) {
      throw new InvalidRequestException(
          "tools", "tools must be an array of at most " + MAX_TOOLS + " function tools");
    }
    for (int i = 0; i < tools.size(); i++) {
      check(tools.get(i), "tools[" + i + "]");
    }
    return mode.equals("none") ? null : (ArrayNode) tools;
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
