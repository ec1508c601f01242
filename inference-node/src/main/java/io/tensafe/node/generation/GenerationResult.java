package io.tensafe.node.generation;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A finished generation, with OpenAI-style usage. */
public record GenerationResult(
    String text, @JsonProperty("finish_reason") String finishReason, Usage usage) {

  /** Token counts. */
  public record Usage(
      @JsonProperty("prompt_tokens") int promptTokens,
      @JsonProperty("completion_tokens") int completionTokens,
      @JsonProperty("total_tokens") int totalTokens) {}
}
