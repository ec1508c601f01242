package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.problem.ApiProblem;
import java.io.IOException;

/**
 * A call of one request to one node, which the gateway may fail over from ({@link Dispatch}): the
 * protocol's part (hosted streams, private sessions), with no metering in it.
 *
 * @param <T> what an answered call gives the caller
 */
public interface NodeAttempt<T> {
  /**
   * Starts the call of request {@code requestId}, admitted as {@code admission}, to {@code target}.
   * Called once the admission has committed; it must not wait for the node's answer (the caller
   * awaits it, and may try the next node).
   */
  Pending<T> start(NodeTarget target, Admission admission, String requestId);

  /**
   * Takes what the protocol needs beside the DP budget, once the request is admitted (recorded, its
   * budget reserved) and before the first node's call starts ({@link #start}), in the admission's
   * transaction: a protocol that overrides this is admitted in a transaction ({@link
   * #takesMoreAtAdmission}), so that a refusal (an {@link ApiProblem}) rolls the whole admission
   * back; the key's rate is then spent again as for any refused request. Default: nothing.
   */
  default void admitted(
      Admission admission, io.tensafe.marketplace.apikey.ApiKeyPrincipal key, String requestId) {}

  /**
   * Whether {@link #admitted} takes anything: then the admission's call and it share one
   * transaction (two round trips and a commit); else the call commits on its own (one round trip,
   * ADR 0042). Default: false.
   */
  default boolean takesMoreAtAdmission() {
    return false;
  }

  /**
   * What the node's refusal {@code e} means to the client, if it is the client's fault (no other
   * node would take it either); null to fail over. Default: always fail over.
   */
  default ApiProblem clientFault(io.tensafe.marketplace.fleet.NodeRefusal e) {
    return null;
  }

  /** A started call. */
  interface Pending<T> {
    /**
     * The node's answer once it starts answering.
     *
     * @throws IOException when the node failed, refused or timed out before it answered
     * @throws ApiProblem when the node answered something the request cannot run with (the request
     *     then ends unserved)
     */
    T await() throws IOException;

    /** Drops the call (the node cancels what it started). */
    void abandon();
  }
}
