package io.tensafe.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.tensafe.chat.openai.InvalidRequestException;
import io.tensafe.chat.openai.OpenAiRequest;
import io.tensafe.node.runtime.SamplingParameters;

/**
 * An OpenAI chat-completions request as the local endpoint reads it: checked by the same rules as
 * the marketplace's ({@code tensafe-chat}'s {@link OpenAiRequest}: every field by name, no-op
 * defaults accepted, anything else refused by name), so code that works against one works against
 * the other. A forced {@code tool_choice} and {@code parallel_tool_calls: false} are kept by the
 * local generation's sampling parameters, as the node keeps them for hosted requests. {@code
 * logprobs} and {@code top_logprobs} are computed here from this client's own logits (the node
 * never sees them). {@code n} above 1 is refused: a private session is one sequence (ADR 0044).
 *
 * @param messages the normalised messages, as the model's chat template reads them
 * @param tools the tools offered to the model, as sent; null when none is
 */
record ChatRequest(
    String model,
    JsonNode messages,
    ArrayNode tools,
    SamplingParameters sampling,
    boolean stream,
    boolean includeUsage) {
  static final int MAX_TOKENS = OpenAiRequest.MAX_TOKENS;

  /**
   * @throws IllegalArgumentException naming the field that is wrong
   */
  static ChatRequest parse(JsonNode body) {
    OpenAiRequest r;
    try {
      r = OpenAiRequest.parse(body, true);
    } catch (InvalidRequestException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
    if (r.choices() > 1) {
      throw new IllegalArgumentException(
          "n must be 1 in private mode: a private session runs one sequence (ask for n choices"
              + " with n requests)");
    }
    SamplingParameters sampling =
        new SamplingParameters(
            r.temperature(),
            0,
            r.topP(),
            SamplingParameters.seedOrFresh(r.seed()),
            r.maxTokens(),
            r.stop(),
            r.constraint(),
            r.endAfter(),
            r.logprobs());
    return new ChatRequest(
        r.model(), r.messagesOrPrompt(), r.tools(), sampling, r.stream(), r.includeUsage());
  }
}
