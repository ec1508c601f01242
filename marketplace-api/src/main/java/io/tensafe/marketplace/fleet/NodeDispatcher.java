package io.tensafe.marketplace.fleet;

import io.quarkus.logging.Log;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Chooses nodes for a request: dispatchable (the view {@code dispatchable_node}, {@code
 * R__node_choice.sql}: neither the node, its credential nor its credential's organisation
 * suspended, with an endpoint, not marked unreachable, not kept out by the circuit breaker) with a
 * fresh heartbeat, of the package's fleet, serving its base model; those that hold the adapter
 * first (declared and downloaded by the node's credential: {@code node_holds_adapter}), then the
 * least loaded (requests in flight over the node's slot ceiling, {@code usable_node.slots}: what it
 * declared, bounded by what it was seen to complete; counted for every replica together unless
 * {@code tensafe.limits.scope} says otherwise). A node at its ceiling is skipped; a request that
 * finds every one full waits for a slot in the gateway's {@code Dispatch}. Thread-safe.
 *
 * <p>Invariant: a node is chosen here only as {@code admit_request} ({@code
 * R__request_admission.sql}) would choose it.
 */
@ApplicationScoped
public class NodeDispatcher {
  @Inject NodesConfig nodes;
  @Inject NodeAddresses addresses;
  @Inject EntityManager em;

  @Inject io.tensafe.marketplace.limits.Limits limits;

  /** A node with a fresh heartbeat that serves the model, and whether it has the adapter loaded. */
  private record FreshNode(
      UUID id,
      String name,
      String endpoint,
      String dispatchToken,
      int slots,
      boolean adapterLoaded,
      int leased) {}

  /**
   * The candidates, best first, each already holding one of its slots (see {@link #release}).
   *
   * @param anyDispatchable whether any node of the fleet serving the model can be dispatched to at
   *     all, whatever its load (as {@code admit_request}'s {@code no_node} says): when none can, a
   *     request is refused at once rather than waiting for a slot
   */
  public record Candidates(List<NodeTarget> targets, boolean anyDispatchable) {}

  /**
   * The {@link Candidates} of a request for {@code adapterRef@version}. The nodes are read in the
   * caller's transaction or one of their own, which ends before any slot is taken: a slot taken is
   * always in the answer (the caller gives it back).
   */
  public Candidates candidates(UUID fleetId, String baseModel, String adapterRef, String version) {
    // One native query: name, endpoint, token, slot ceiling and adapter of the fresh nodes.
    List<FreshNode> serving =
        io.quarkus.narayana.jta.QuarkusTransaction.joiningExisting()
            .call(() -> freshNodes(fleetId, baseModel, adapterRef, version));
    // The shared scope's counts came with the nodes; the instance scope counts in memory.
    var slots = limits.slots();
    boolean shared = limits.scope() == io.tensafe.marketplace.limits.LimitsConfig.Scope.SHARED;
    int[] held = shared ? null : slots.held(serving.stream().map(FreshNode::id).toList());
    Map<UUID, Integer> load = new java.util.HashMap<>();
    for (int k = 0; k < serving.size(); k++) {
      load.put(serving.get(k).id(), shared ? serving.get(k).leased() : held[k]);
    }
    List<FreshNode> ordered = new ArrayList<>(serving);
    ordered.sort(
        Comparator.comparing((FreshNode n) -> !n.adapterLoaded())
            .thenComparingDouble(n -> load.get(n.id()) / (double) n.slots()));
    // Slots are taken in ascending node id (the lock order every transaction follows), then the
    // targets listed best first.
    Map<UUID, NodeTarget> taken = new java.util.HashMap<>();
    List<FreshNode> byId = new ArrayList<>(serving);
    byId.sort(Comparator.comparing(FreshNode::id));
    for (FreshNode n : byId) {
      StringBuilder why = new StringBuilder();
      Optional<URI> endpoint = addresses.usable(n.endpoint(), why);
      if (endpoint.isEmpty()) {
        Log.warnf("node %s is skipped: its endpoint is not usable (%s)", n.name(), why);
        continue;
      }
      if (load.get(n.id()) >= n.slots()) {
        continue;
      }
      slots
          .take("node", n.id(), n.slots())
          .ifPresent(
              slot ->
                  taken.put(
                      n.id(),
                      new NodeTarget(
                          n.id(),
                          n.name(),
                          endpoint.get(),
                          n.adapterLoaded(),
                          n.dispatchToken(),
                          slot)));
    }
    List<NodeTarget> targets = new ArrayList<>();
    for (FreshNode n : ordered) {
      if (taken.containsKey(n.id())) {
        targets.add(taken.get(n.id()));
      }
    }
    return new Candidates(targets, !serving.isEmpty());
  }

  private List<FreshNode> freshNodes(
      UUID fleetId, String baseModel, String adapterRef, String version) {
    return Rows.list(
        em.createNativeQuery(
                """
                SELECT id, name, endpoint, dispatch_token, slots,
                       node_holds_adapter(client_id, loaded_adapters, :adapter, :version),
                       (SELECT count(*)::int FROM limit_lease l
                        WHERE l.subject = u.id AND l.expires_at > now())
                FROM dispatchable_node u
                WHERE fleet_id = :f
                  AND last_heartbeat_at > :fresh AND :model = ANY (base_models)
                """)
            .setParameter("adapter", adapterRef)
            .setParameter("version", version)
            .setParameter("f", fleetId)
            .setParameter("fresh", OffsetDateTime.now().minus(nodes.heartbeatTimeout()))
            .setParameter("model", baseModel),
        FreshNode.class);
  }

  /**
   * What the admission's one database call ({@code admit_request}) needs to choose the nodes
   * itself, as {@link #candidates} would: the fleet and base model, the oldest heartbeat still
   * fresh, and this replica's lease holder id and lease time.
   */
  public record NodeChoice(
      UUID fleetId, String baseModel, OffsetDateTime freshSince, UUID holder, double ttlSeconds) {}

  /**
   * The node choice for the admission's database call when slots are counted in the database (the
   * shared scope); empty when they are counted in memory, and {@link #candidates} chooses.
   */
  public Optional<NodeChoice> inTheAdmission(UUID fleetId, String baseModel) {
    if (limits.scope() != io.tensafe.marketplace.limits.LimitsConfig.Scope.SHARED) {
      return Optional.empty();
    }
    return Optional.of(
        new NodeChoice(
            fleetId,
            baseModel,
            OffsetDateTime.now().minus(nodes.heartbeatTimeout()),
            limits.holder(),
            limits.leaseTtl().toSeconds()));
  }

  /** A node whose slot the admission's database call took, as it lists them (JSON). */
  record ChosenNode(
      UUID id,
      String name,
      String endpoint,
      String dispatchToken,
      boolean hasAdapter,
      UUID slot,
      double load) {}

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper()
          .configure(
              com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
              false);

  /**
   * The targets, best first, of the slots the admission's database call took ({@code json}, as it
   * lists them): a node whose endpoint is not usable is skipped as {@link #candidates} skips it,
   * and its slot given back in the caller's transaction.
   */
  public Chosen chosen(String json) {
    ChosenNode[] chosen;
    try {
      chosen = JSON.readValue(json, ChosenNode[].class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("admit_request listed its nodes unreadably", e);
    }
    List<NodeTarget> targets = new ArrayList<>();
    for (ChosenNode n : chosen) {
      StringBuilder why = new StringBuilder();
      Optional<URI> endpoint = addresses.usable(n.endpoint(), why);
      if (endpoint.isEmpty()) {
        Log.warnf("node %s is skipped: its endpoint is not usable (%s)", n.name(), why);
        limits.slots().giveAllWithTransaction(List.of(n.slot()));
        continue;
      }
      targets.add(
          new NodeTarget(
              n.id(), n.name(), endpoint.get(), n.hasAdapter(), n.dispatchToken(), n.slot()));
    }
    return new Chosen(chosen.length == 0 ? null : chosen[0].id(), targets);
  }

  /**
   * Every slot the admission's database call took, as it lists them ({@code json}), whatever their
   * nodes' endpoints: for giving them back when the admitted request cannot be sent. Empty when the
   * list cannot be read (logged: its leases then expire once no replica renews them).
   */
  public List<UUID> slotsIn(String json) {
    try {
      List<UUID> slots = new ArrayList<>();
      for (ChosenNode n : JSON.readValue(json, ChosenNode[].class)) {
        slots.add(n.slot());
      }
      return slots;
    } catch (com.fasterxml.jackson.core.JsonProcessingException | RuntimeException e) {
      Log.errorf(e, "the admission's node list is unreadable; its slots are not given back");
      return List.of();
    }
  }

  /**
   * The slots the admission's database call took.
   *
   * @param recorded the node it recorded the request on (the first it listed), null when none
   * @param targets the usable ones, best first
   */
  public record Chosen(UUID recorded, List<NodeTarget> targets) {}

  /**
   * Marks {@code target} unhealthy at once because a connection to it failed: no request is sent to
   * it until it registers or beats again (it then proves it is back). Its own transaction, so the
   * mark stays whatever the request does next.
   *
   * @param cause why, for admins; cut to 500 characters
   */
  @Transactional(Transactional.TxType.REQUIRES_NEW)
  public void markUnreachable(NodeTarget target, String cause) {
    em.createNativeQuery(
            "UPDATE node SET unreachable_since = now(), unreachable_cause = :c WHERE id = :id")
        .setParameter("c", cause.length() > 500 ? cause.substring(0, 500) : cause)
        .setParameter("id", target.id())
        .executeUpdate();
  }

  /**
   * Counts a failure of {@code target} for its circuit breaker ({@code note_node_failure}, {@code
   * R__node_choice.sql}, ADR 0038): it received a request and failed before answering it. Ended
   * requests count through the database's trigger instead. Its own transaction.
   */
  @Transactional(Transactional.TxType.REQUIRES_NEW)
  public void noteFailure(NodeTarget target) {
    em.createNativeQuery("SELECT note_node_failure(:id)")
        .setParameter("id", target.id())
        .getSingleResult();
  }

  /** Gives back a slot taken by {@link #candidates}. */
  public void release(NodeTarget target) {
    limits.slots().give(target.slot());
  }

  /** Requests in flight to {@code node}. */
  public int load(UUID node) {
    return limits.slots().held(List.of(node))[0];
  }
}
