package io.tensafe.chat.template;

import com.fasterxml.jackson.databind.JsonNode;
import io.tensafe.chat.template.ChatTemplateException.Reason;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model folder's chat template ({@code tokenizer_config.json}'s {@code chat_template}), compiled
 * once and rendered per request as Hugging Face's {@code apply_chat_template} renders it: Jinja2
 * with {@code trim_blocks} and {@code lstrip_blocks}, the loop-controls extension, {@code tojson}
 * as Python's {@code json.dumps(ensure_ascii=False)} and {@code raise_exception}.
 *
 * <p>It implements the subset of Jinja2 that chat templates use (see {@link Builtins}); a template
 * with any other construct is refused by {@link #compile} with {@link Reason#UNSUPPORTED} and a
 * message naming the construct and its line. Rendering touches only the values passed in: a
 * template cannot reach Java objects, files or the network. Immutable and thread-safe.
 */
public final class ChatTemplate {
  /** The longest template accepted, in chars (Qwen's are about 4 KiB). */
  public static final int MAX_TEMPLATE_CHARS = 256 * 1024;

  private final List<TemplateNode> body;

  private ChatTemplate(List<TemplateNode> body) {
    this.body = body;
  }

  /** Compiles {@code source}, refusing what this renderer does not implement. */
  public static ChatTemplate compile(String source) throws ChatTemplateException {
    if (source.length() > MAX_TEMPLATE_CHARS) {
      throw new ChatTemplateException(
          Reason.SYNTAX,
          "chat template of "
              + source.length()
              + " chars exceeds the limit of "
              + MAX_TEMPLATE_CHARS);
    }
    return new ChatTemplate(List.copyOf(TemplateParser.parse(source)));
  }

  /**
   * Renders the template.
   *
   * @param messages the chat messages as OpenAI's JSON has them (roles, content, tool calls)
   * @param tools the request's tools as sent (OpenAI's {@code {"type":"function","function":...}}
   *     objects), or null for none
   * @param variables further variables: {@code add_generation_prompt}, {@code bos_token}, {@code
   *     eos_token}, {@code enable_thinking}; strings, booleans, numbers, or parsed JSON
   */
  public String render(JsonNode messages, JsonNode tools, Map<String, ?> variables)
      throws ChatTemplateException {
    Map<String, Object> context = new LinkedHashMap<>();
    variables.forEach(
        (k, v) -> context.put(k, v instanceof JsonNode j ? PyJson.fromJson(j) : normalise(v)));
    context.put("messages", PyJson.fromJson(messages));
    if (tools != null && !tools.isNull() && !tools.isEmpty()) {
      context.put("tools", PyJson.fromJson(tools));
    }
    TemplateInterpreter interpreter = new TemplateInterpreter();
    try {
      return interpreter.run(body, context);
    } catch (PyValues.RenderFailure | ArithmeticException | IndexOutOfBoundsException e) {
      throw new ChatTemplateException(
          Reason.RENDER, "chat template line " + interpreter.line() + ": " + e.getMessage());
    }
  }

  private static Object normalise(Object v) {
    return switch (v) {
      case Integer i -> (long) i;
      case Float f -> (double) f;
      case null, default -> v;
    };
  }
}
