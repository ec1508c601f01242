package io.tensafe.marketplace.gateway;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A node's account of a finished generation, from its final stream event.
 *
 * @param promptTokens prompt tokens it ran (≥ 0)
 * @param completionTokens tokens it generated (≥ 0)
 * @param dpReleases noised LoRA inputs it released (≥ 0; 0 when it reported none)
 */
public record NodeUsage(int promptTokens, int completionTokens, long dpReleases) {
  /** Reads {@code {"usage": {"prompt_tokens", "completion_tokens"}, "report": {"dpReleases"}}}. */
  static NodeUsage of(JsonNode finalEvent) {
    JsonNode u = finalEvent.path("usage");
    return new NodeUsage(
        Math.max(0, u.path("prompt_tokens").asInt()),
        Math.max(0, u.path("completion_tokens").asInt()),
        Math.max(0, finalEvent.path("report").path("dpReleases").asLong()));
  }
}
