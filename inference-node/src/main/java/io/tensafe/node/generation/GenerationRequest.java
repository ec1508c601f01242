package io.tensafe.node.generation;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A generation request: a raw {@code prompt} or chat {@code messages} (rendered with ChatML), and
 * sampling parameters with OpenAI's names. Absent values take defaults: max_tokens 128, greedy
 * (temperature 0), top_p 1, top_k 0 (off), seed 0, no stop strings, not streamed.
 */
public record GenerationRequest(
    String prompt,
    List<Message> messages,
    @JsonProperty("max_tokens") Integer maxTokens,
    Double temperature,
    @JsonProperty("top_p") Double topP,
    @JsonProperty("top_k") Integer topK,
    Long seed,
    List<String> stop,
    Boolean stream) {

  /** One chat message. */
  public record Message(String role, String content) {}
}
