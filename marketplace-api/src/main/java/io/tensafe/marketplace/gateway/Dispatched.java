package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.fleet.NodeTarget;
import io.tensafe.marketplace.privacy.Reservation;
import java.time.OffsetDateTime;

/**
 * A request admitted, reserved and answered by a node: the node's slot and the call are the
 * request's now, to be given back when it ends.
 *
 * @param requestId the request's id (also the private session's id)
 * @param startedAt when it was admitted (UTC)
 */
public record Dispatched<T>(
    String requestId,
    OffsetDateTime startedAt,
    Admission admission,
    Reservation reservation,
    NodeTarget node,
    T call) {}
