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
 * @param maxTokens the client's {@code max_tokens}, 1..4096
 * @param nodeBody the node's request body for an adapter, request id and prompt-token bound
 */
public record HostedRequest(
    String model,
    List<RoutedText> routing,
    String renderedPrompt,
    int maxTokens,
    NodeBody nodeBody) {

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
