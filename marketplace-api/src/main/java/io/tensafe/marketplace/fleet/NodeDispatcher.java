package io.tensafe.marketplace.fleet;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Chooses nodes for a request: healthy (fresh heartbeat, not suspended, with an endpoint), of the
 * package's fleet, serving its base model; those that hold the adapter first, then the least loaded
 * (requests in flight from this marketplace instance over the node's declared concurrency). A node
 * at its concurrency is skipped, so a full fleet is refused rather than queued. Thread-safe.
 */
@ApplicationScoped
public class NodeDispatcher {
  @Inject EntityManager em;

  @ConfigProperty(name = "tensafe.nodes.heartbeat-timeout", defaultValue = "PT30S")
  Duration heartbeatTimeout;

  private final Map<UUID, AtomicInteger> inFlight = new ConcurrentHashMap<>();

  /** The candidates, best first, each already holding one of its slots (see {@link #release}). */
  @Transactional
  public List<NodeTarget> candidates(UUID fleetId, String baseModel, String adapterRef) {
    List<Node> nodes =
        em.createQuery(
                "from Node where fleetId = :f and suspendedAt is null and endpoint is not null"
                    + " and lastHeartbeatAt > :fresh",
                Node.class)
            .setParameter("f", fleetId)
            .setParameter("fresh", OffsetDateTime.now().minus(heartbeatTimeout))
            .getResultList();
    List<Node> serving = new ArrayList<>();
    for (Node n : nodes) {
      if (List.of(n.baseModels).contains(baseModel)) {
        serving.add(n);
      }
    }
    serving.sort(
        Comparator.comparing((Node n) -> !List.of(n.loadedAdapters).contains(adapterRef))
            .thenComparingDouble(n -> load(n.id) / (double) n.maxConcurrency));
    List<NodeTarget> targets = new ArrayList<>();
    for (Node n : serving) {
      AtomicInteger count = inFlight.computeIfAbsent(n.id, k -> new AtomicInteger());
      if (count.incrementAndGet() > n.maxConcurrency) {
        count.decrementAndGet();
        continue;
      }
      targets.add(
          new NodeTarget(
              n.id,
              n.name,
              URI.create(n.endpoint.endsWith("/") ? n.endpoint : n.endpoint + "/"),
              List.of(n.loadedAdapters).contains(adapterRef),
              n.dispatchToken));
    }
    return targets;
  }

  /** Gives back a slot taken by {@link #candidates}. */
  public void release(NodeTarget target) {
    AtomicInteger count = inFlight.get(target.id());
    if (count != null) {
      count.decrementAndGet();
    }
  }

  /** Requests in flight to {@code node} from this instance. */
  public int load(UUID node) {
    AtomicInteger count = inFlight.get(node);
    return count == null ? 0 : count.get();
  }
}
