package io.tensafe.marketplace.gateway;

/** How the gateway ended a dispatched request (column {@code gateway_request.outcome}). */
public enum RequestOutcome {
  /**
   * The node's final event arrived and was passed on: billed for the counted prompt and the
   * completion text relayed, counted by the marketplace.
   */
  COMPLETED,
  /** The client stopped reading: billed for the text it was sent. */
  CLIENT_GONE,
  /** The node failed or vanished mid-generation: billed for the text the client was sent. */
  NODE_FAILED,
  /**
   * No node took the request (none reachable, each refused before generating): nothing billed, the
   * reservation refunded.
   */
  NO_NODE,
  /**
   * The node did not answer within the first-byte timeout, so it may be running the request: the
   * connection is dropped (which cancels it there), nothing billed, the reservation kept until the
   * node's report settles it to the releases it made.
   */
  NODE_TIMEOUT,
  /**
   * The node refused the request's adapter (it does not fit its base model or does not open): a 422
   * to the client, nothing billed, the reservation refunded.
   */
  REJECTED,
  /**
   * The request's gateway died before it ended it: the sweep or the node's report ended it, billed
   * at most what the gateway had recorded as relayed ({@code relayed_completion_tokens}).
   */
  GATEWAY_LOST,
  /**
   * The node's final event arrived with no text before it: billed the counted prompt only, and it
   * earns the node no slot and counts as a failure for its breaker (ADR 0038).
   */
  EMPTY;

  public String column() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
