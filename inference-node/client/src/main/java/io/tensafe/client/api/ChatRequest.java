package io.tensafe.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
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
 *
 * @param messages the messages as the model's chat template reads them: {@code role} (system, user
 *     or assistant; {@code developer} read as system) and string {@code content}
 */
record ChatRequest(
    String model,
    ArrayNode messages,
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
    ArrayNode messages = JsonNodeFactory.instance.arrayNode();
    for (JsonNode m : body.path("messages")) {
      if (!m.path("content").isTextual()) {
        throw new IllegalArgumentException("messages[].content must be a string");
      }
      String role = m.path("role").asText("");
      if (!java.util.Set.of("system", "developer", "user", "assistant").contains(role)) {
        throw new IllegalArgumentException(
            "messages[].role must be system, developer, user or assistant, was " + role);
      }
      messages
          .addObject()
          .put("role", role.equals("developer") ? "system" : role)
          .put("content", m.path("content").asText());
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
            stop);
    return new ChatRequest(
        model,
        messages,
        sampling,
        body.path("stream").asBoolean(false),
        body.path("stream_options").path("include_usage").asBoolean(false));
  }

  /** What the step-gate reads, as the marketplace reads it (ADR 0009). */
  List<RoutedText> routing() {
    List<ConversationTexts.Message> read = new ArrayList<>();
    messages.forEach(
        m -> read.add(new ConversationTexts.Message(m.get("role").asText(), m.get("content").asText())));
    return ConversationTexts.of(read);
  }
}
