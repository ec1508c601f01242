package io.tensafe.marketplace.gateway;

import io.tensafe.tgsp.routing.RoutedText;
import java.util.List;

/**
 * What the gateway needs of a hosted completion, whatever its wire format.
 *
 * @param model {@code auto}, {@code id} or {@code id@x.y.z}
 * @param routing the texts the step-gate reads for {@code auto}
 * @param renderedPrompt the prompt text the node tokenizes (the marketplace counts and bills its
 *     tokens)
 * @param maxTokens the client's {@code max_tokens}, 1..4096: each choice's bound
 * @param choices OpenAI's {@code n}, 1..8: the admission reserves for {@code choices × maxTokens}
 *     completion tokens ({@link #maxCompletionTokens})
 * @param topLogprobs the {@code top_logprobs} asked for with {@code logprobs}, 0..20; -1 without
 * @param nodeBody the node's request body for an adapter, request id and prompt-token bound
 */
public record HostedRequest(
    String model,
    List<RoutedText> routing,
    String renderedPrompt,
    int maxTokens,
    int choices,
    int topLogprobs,
    NodeBody nodeBody) {
  public HostedRequest {
    if (choices < 1 || maxTokens < 1) {
      throw new IllegalArgumentException("a request has at least one choice of one token");
    }
  }

  /**
   * The most completion tokens the request can bill, over all its choices: {@code choices ×
   * maxTokens}, what its admission records and reserves DP releases for (ADR 0044).
   */
  public int maxCompletionTokens() {
    return Math.multiplyExact(choices, maxTokens);
  }

  /** Writes the node's request body. */
  @FunctionalInterface
  public interface NodeBody {
    /**
     * @param adapter {@code id@x.y.z}
     * @param maxPromptTokens the prompt tokens the marketplace counted and reserved for: the node
     *     refuses a prompt it counts longer
     */
    byte[] of(String adapter, String requestId, int maxPromptTokens);
  }
}
