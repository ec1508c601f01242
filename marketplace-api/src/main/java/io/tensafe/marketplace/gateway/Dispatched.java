package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.privacy.Reservation;
import java.time.OffsetDateTime;

/**
 * A request admitted, reserved and answered by a node: the node's slot, the key's slot and the call
 * are the request's now, to be given back when it ends.
 *
 * @param requestId the request's id (also the private session's id)
 * @param startedAt when it was admitted (UTC)
 * @param keySlot the lease on one of the API key's slots, the request's to give back when it ends
 */
public record Dispatched<T>(
    String requestId,
    OffsetDateTime startedAt,
    Admission admission,
    Reservation reservation,
    NodeTarget node,
    T call,
    java.util.UUID keySlot) {

  /** This, holding the key's slot {@code lease}. */
  Dispatched<T> withKeySlot(java.util.UUID lease) {
    return new Dispatched<>(requestId, startedAt, admission, reservation, node, call, lease);
  }
}
