package io.tensafe.chat.template;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tensafe.chat.template.ChatTemplateException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * How a model turns chat messages into its prompt, from its folder's {@code tokenizer_config.json}:
 * the {@code chat_template} (a string, or the {@code default} of a list of named templates) and the
 * {@code bos_token} and {@code eos_token} the template may print. One rule for the marketplace
 * (prompt-token counting), the node and the private client. Immutable and thread-safe.
 *
 * @param template the compiled chat template
 * @param bosToken the beginning-of-sequence token's text, or "" when the folder names none
 * @param eosToken the end-of-sequence token's text, or "" when the folder names none
 */
public record ChatFormat(ChatTemplate template, String bosToken, String eosToken) {
  /** The largest {@code tokenizer_config.json} read: 4 MiB (Qwen's is about 7 KiB). */
  public static final long MAX_CONFIG_BYTES = 4L << 20;

  /** Text after the JSON value is refused: arguments with any are kept as the string sent. */
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  static {
    JSON.getFactory()
        .setStreamReadConstraints(
            StreamReadConstraints.builder()
                .maxNestingDepth(64)
                .maxStringLength((int) MAX_CONFIG_BYTES)
                .build());
  }

  /**
   * Reads {@code folder/tokenizer_config.json}.
   *
   * @throws IOException naming the file when it is missing, too large or not JSON
   * @throws ChatTemplateException when it has no chat template or one outside the supported subset
   */
  public static ChatFormat read(Path folder) throws IOException, ChatTemplateException {
    Path file = folder.resolve("tokenizer_config.json");
    if (!Files.isRegularFile(file)) {
      throw new IOException(
          file + " is missing: a model folder carries its chat template (tokenizer_config.json)");
    }
    if (Files.size(file) > MAX_CONFIG_BYTES) {
      throw new IOException(file + " is larger than " + (MAX_CONFIG_BYTES >> 20) + " MiB");
    }
    JsonNode config;
    try {
      config = JSON.readTree(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new IOException(file + " is not JSON: " + e.getMessage(), e);
    }
    return of(config);
  }

  /** The format a parsed {@code tokenizer_config.json} describes. */
  public static ChatFormat of(JsonNode config) throws ChatTemplateException {
    JsonNode template = config.path("chat_template");
    if (template.isArray()) {
      JsonNode named = null;
      for (JsonNode t : template) {
        if ("default".equals(t.path("name").asText())) {
          named = t.path("template");
        }
      }
      template =
          named == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : named;
    }
    if (!template.isTextual() || template.asText().isBlank()) {
      throw new ChatTemplateException(
          Reason.MISSING,
          "tokenizer_config.json has no chat_template: this model cannot run chat messages"
              + " (send a prompt instead)");
    }
    return new ChatFormat(
        ChatTemplate.compile(template.asText()),
        tokenText(config.path("bos_token")),
        tokenText(config.path("eos_token")));
  }

  /** A special token's text: a string, or an object's {@code content}; "" when absent or null. */
  private static String tokenText(JsonNode token) {
    if (token.isTextual()) {
      return token.asText();
    }
    return token.path("content").isTextual() ? token.path("content").asText() : "";
  }

  /**
   * The prompt of {@code messages} (OpenAI's JSON: roles, content, tool calls, tool results),
   * opening the assistant's turn. A tool call's {@code arguments} sent as a JSON string, as
   * OpenAI's API has them, are given to the template parsed (as serving stacks do, so the
   * template's {@code tojson} prints the object, not a quoted string); a null or absent {@code
   * content} (an assistant turn that only calls tools) is given as "".
   *
   * @param tools the request's tools, or null when the model is not offered any
   * @throws ChatTemplateException with {@link Reason#RENDER} when the template refuses the messages
   */
  public String prompt(JsonNode messages, JsonNode tools) throws ChatTemplateException {
    return template.render(
        forTemplate(messages),
        tools,
        Map.of("add_generation_prompt", true, "bos_token", bosToken, "eos_token", eosToken));
  }

  private static JsonNode forTemplate(JsonNode messages) {
    JsonNode copy = messages.deepCopy();
    for (JsonNode m : copy) {
      if (m instanceof ObjectNode o && (!o.has("content") || o.get("content").isNull())) {
        o.put("content", "");
      }
      for (JsonNode call : m.path("tool_calls")) {
        JsonNode function = call.path("function");
        JsonNode arguments = function.path("arguments");
        if (function instanceof ObjectNode f && arguments.isTextual()) {
          try {
            JsonNode parsed = JSON.readTree(arguments.asText());
            if (parsed != null && parsed.isObject()) {
              f.set("arguments", parsed);
            }
          } catch (IOException notJson) {
            // kept as the string it is; the template prints it as such
          }
        }
      }
    }
    return copy;
  }
}
