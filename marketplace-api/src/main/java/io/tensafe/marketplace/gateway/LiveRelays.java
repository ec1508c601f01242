package io.tensafe.marketplace.gateway;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The hosted requests this replica is relaying now: vouched for in the database at every sweep
 * ({@link UnreportedRequests}), so that no replica takes a live stream for one whose gateway died,
 * however slowly its node or client goes. Thread-safe.
 */
@ApplicationScoped
public class LiveRelays {
  private final Set<UUID> ids = ConcurrentHashMap.newKeySet();

  void add(String requestId) {
    ids.add(UUID.fromString(requestId));
  }

  void remove(String requestId) {
    ids.remove(UUID.fromString(requestId));
  }

  /** The requests relayed now. */
  Set<UUID> ids() {
    return Set.copyOf(ids);
  }
}
