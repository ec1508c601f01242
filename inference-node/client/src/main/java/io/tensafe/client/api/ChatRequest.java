package io.tensafe.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.tensafe.node.runtime.ChatMessage;
import io.tensafe.node.runtime.SamplingParameters;
import io.tensafe.tgsp.routing.ConversationTexts;
import io.tensafe.tgsp.routing.RoutedText;
import java.util.ArrayList;
import java.util.List;

/**
 * An OpenAI chat-completions request as the local endpoint reads it: {@code model}, {@code
 * messages} (string contents), {@code max_tokens} or {@code max_completion_tokens} (1 to 4096,
 * default 256), {@code temperature}, {@code top_p}, {@code seed}, {@code stop}, {@code stream} and
 * {@code stream_options.include_usage}. Other fields are ignored, as OpenAI-compatible servers do.
 */
record ChatRequest(
    String model,
    List<ChatMessage> messages,
    SamplingParameters sampling,
    boolean stream,
    boolean includeUsage) {
  static final int MAX_TOKENS = 4096;

  /**
   * @throws IllegalArgumentException naming the field that is wrong
   */
  static ChatRequest parse(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("the body must be a JSON object");
    }
    String model = body.path("model").asText("");
    if (model.isBlank()) {
      throw new IllegalArgumentException("model is required");
    }
    List<ChatMessage> messages = new ArrayList<>();
    for (JsonNode m : body.path("messages")) {
      if (!m.path("content").isTextual()) {
        throw new IllegalArgumentException("messages[].content must be a string");
      }
      String role = m.path("role").asText("");
      messages.add(
          new ChatMessage(role.equals("developer") ? "system" : role, m.path("content").asText()));
    }
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("messages must hold at least one message");
    }
    JsonNode max =
        body.has("max_completion_tokens")
            ? body.get("max_completion_tokens")
            : body.get("max_tokens");
    int maxTokens = max == null || max.isNull() ? 256 : max.asInt(-1);
    if (maxTokens < 1 || maxTokens > MAX_TOKENS) {
      throw new IllegalArgumentException("max_tokens must be in [1, " + MAX_TOKENS + "]");
    }
    List<String> stop = new ArrayList<>();
    JsonNode s = body.path("stop");
    if (s.isTextual()) {
      stop.add(s.asText());
    } else {
      s.forEach(x -> stop.add(x.asText()));
    }
    SamplingParameters sampling =
        new SamplingParameters(
            body.path("temperature").asDouble(0),
            0,
            body.path("top_p").asDouble(1),
            SamplingParameters.seedOrFresh(
                body.path("seed").isIntegralNumber() ? body.get("seed").asLong() : null),
            maxTokens,
            stop,
            format(body.get("response_format")));
    return new ChatRequest(
        model,
        messages,
        sampling,
        body.path("stream").asBoolean(false),
        body.path("stream_options").path("include_usage").asBoolean(false));
  }

  /**
   * The JSON language a response_format asks for (null: free text), checked by the same code as the
   * marketplace's and the node's; the local decoder constrains to it (ADR 0031).
   */
  private static io.tensafe.chat.json.JsonGrammar format(JsonNode value) {
    try {
      return io.tensafe.chat.json.ResponseFormat.parse(value).grammar();
    } catch (io.tensafe.chat.json.ResponseFormatException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
  }

  /** What the step-gate reads, as the marketplace reads it (ADR 0009). */
  List<RoutedText> routing() {
    return ConversationTexts.of(
        messages.stream().map(m -> new ConversationTexts.Message(m.role(), m.content())).toList());
  }
}
