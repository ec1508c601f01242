package io.tensafe.node.generation;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.tensafe.node.usage.UsageReport;

/**
 * A finished generation, with OpenAI-style usage and the node's own report of it.
 *
 * @param report the usage report stored in the outbox for this request (same values)
 */
public record GenerationResult(
    @JsonProperty("request_id") String requestId,
    String text,
    @JsonProperty("finish_reason") String finishReason,
    Usage usage,
    UsageReport report) {

  /** Token counts. */
  public record Usage(
      @JsonProperty("prompt_tokens") int promptTokens,
      @JsonProperty("completion_tokens") int completionTokens,
      @JsonProperty("total_tokens") int totalTokens) {}

  static GenerationResult of(ModelService.Served served) {
    var g = served.generation();
    return new GenerationResult(
        served.usage().requestId(),
        g.text(),
        g.finishReason(),
        new Usage(g.promptTokens(), g.completionTokens(), g.promptTokens() + g.completionTokens()),
        served.usage());
  }
}
