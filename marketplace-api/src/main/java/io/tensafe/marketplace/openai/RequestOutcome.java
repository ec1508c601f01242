package io.tensafe.marketplace.openai;

/** How the gateway ended a dispatched request (column {@code gateway_request.outcome}). */
public enum RequestOutcome {
  /** The node's final event arrived and was passed on: billed from the node's counts. */
  COMPLETED,
  /** The client stopped reading: billed for the text it was sent. */
  CLIENT_GONE,
  /** The node failed or vanished mid-generation: billed for the text the client was sent. */
  NODE_FAILED;

  String column() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
