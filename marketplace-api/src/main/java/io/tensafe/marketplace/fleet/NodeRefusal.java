package io.tensafe.marketplace.fleet;

import java.io.IOException;

/**
 * A node answered a generation request with an error status before generating anything. Its body
 * (at most {@link NodeCall#MAX_ERROR_BYTES}) is for the log, never for the client.
 */
public final class NodeRefusal extends IOException {
  private final int status;

  NodeRefusal(String node, int status, String body) {
    super("node " + node + " answered " + status + ": " + body);
    this.status = status;
  }

  /** The node's HTTP status. */
  public int status() {
    return status;
  }

  /**
   * Whether the node refused the request's adapter itself (422: it cannot run on the node's base
   * model, or does not open): every node of that model would refuse it too, so failing over cannot
   * help.
   */
  public boolean adapterRefused() {
    return status == 422;
  }
}
