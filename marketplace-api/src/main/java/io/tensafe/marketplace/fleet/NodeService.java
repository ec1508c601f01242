package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.LockModeType;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Node registration and heartbeats. A node is identified by its credential (the token subject; each
 * node has its own) and the name it registers. Registering needs a fresh fleet proof ({@link
 * NodeChallenges}): only a holder of the fleet's private key joins the fleet. Within a fleet a name
 * belongs to the credential that first registered it. A node is healthy while its last heartbeat is
 * younger than {@code tensafe.nodes.heartbeat-timeout}. A credential is bound at registration to
 * the organisation its token names ({@link NodeCredentials#ORGANISATION_CLAIM}); a node whose
 * credential or organisation is suspended is refused ({@link NodeCredentials}).
 */
@ApplicationScoped
public class NodeService {
  @Inject NodesConfig nodes;
  @Inject NodeAddresses addresses;
  @Inject NodeRepository nodeRows;
  @Inject NodeFleetRepository fleetRows;
  @Inject JsonWebToken token;
  @Inject FleetService fleets;
  @Inject NodeChallenges challenges;
  @Inject NodeCredentials credentials;
  @Inject io.tensafe.marketplace.health.ProductionGuard guard;

  /** Registers or re-registers this credential's node; returns its view. */
  @Transactional
  public NodeView register(NodeRegistration r) {
    NodeFleet fleet =
        fleetRows.findById(
            fleets
                .byRef(r.fleetId())
                .orElseThrow(
                    () -> ProblemTypes.validation("fleet '" + r.fleetId() + "' is not registered"))
                .id,
            LockModeType.PESSIMISTIC_WRITE);
    if (r.url() != null && r.dispatchToken() == null) {
      throw ProblemTypes.validation(
          "a node with a url must give the dispatchToken the marketplace will present to it");
    }
    if (r.url() != null) {
      StringBuilder why = new StringBuilder();
      if (addresses.usable(r.url(), why).isEmpty()) {
        throw ProblemTypes.validation("url '" + r.url() + "' is not a usable endpoint: " + why);
      }
      if (guard.requiresTls() && !r.url().startsWith("https://")) {
        throw ProblemTypes.validation(
            "url must be https in production: the dispatch token must not travel in the clear");
      }
    }
    credentials.bind(token.getSubject(), token.<String>claim(NodeCredentials.ORGANISATION_CLAIM));
    credentials.requireUsable(token.getSubject());
    challenges.consume(r.fleetProof(), fleet, r.name());
    if (nameHeldByAnotherCredential(fleet, r.name())) {
      throw ProblemTypes.conflict(
          "node name '"
              + r.name()
              + "' in fleet "
              + fleet.fleetRef
              + " belongs to another credential");
    }
    Node node = own(r.name()).orElseGet(Node::new);
    if (node.id == null) {
      node.id = UUID.randomUUID();
      node.clientId = token.getSubject();
      node.name = r.name();
      node.registeredAt = OffsetDateTime.now();
    }
    node.fleetId = fleet.id;
    node.baseModels = r.baseModels().toArray(String[]::new);
    node.accelerator = r.accelerator();
    node.endpoint = r.url();
    node.dispatchToken = r.dispatchToken();
    node.maxConcurrency = r.maxConcurrency();
    if (r.modelShape() != null) {
      try {
        r.modelShape().toShape();
      } catch (IllegalArgumentException e) {
        throw ProblemTypes.validation("modelShape: " + e.getMessage());
      }
      node.modelShape = r.modelShape().columns();
      node.modelExperts =
          r.modelShape().experts() == null ? null : r.modelShape().experts().columns();
    }
    node.loadedAdapters =
        r.loadedAdapters() == null ? new String[0] : r.loadedAdapters().toArray(String[]::new);
    node.lastHeartbeatAt = OffsetDateTime.now();
    node.unreachableSince = null;
    node.unreachableCause = null;
    nodeRows.persist(node);
    return view(node, fleet.fleetRef);
  }

  /** Records a heartbeat (and the adapters now loaded) of this credential's node. */
  @Transactional
  public NodeView heartbeat(String name, List<String> loadedAdapters) {
    Node node =
        own(name).orElseThrow(() -> ProblemTypes.notFound("node " + name + " (register first)"));
    credentials.requireUsable(node);
    node.lastHeartbeatAt = OffsetDateTime.now();
    node.unreachableSince = null;
    node.unreachableCause = null;
    if (loadedAdapters != null) {
      node.loadedAdapters = loadedAdapters.toArray(String[]::new);
    }
    return view(node, fleetRows.findById(node.fleetId).fleetRef);
  }

  /** Whether a node named {@code name} in {@code fleet} was registered by another credential. */
  private boolean nameHeldByAnotherCredential(NodeFleet fleet, String name) {
    return nodeRows.nameHeldByAnother(fleet.id, name, token.getSubject());
  }

  /**
   * 403 unless this credential's {@code node} may act: it, every other node of its credential (a
   * suspension binds the credential) and the organisation operating it are not suspended.
   */
  public void requireUsable(Node node) {
    credentials.requireUsable(node);
  }

  /** This credential's node with this name, if registered. */
  public Optional<Node> own(String name) {
    return nodeRows.own(token.getSubject(), name);
  }

  /**
   * The shape of {@code baseModel} as the node of {@code fleetId} that heartbeat most recently
   * while serving it reported it, if any did.
   */
  public Optional<io.tensafe.tgsp.peft.BaseModelShape> reportedShape(
      String baseModel, UUID fleetId) {
    return nodeRows.withShape(fleetId).stream()
        .filter(n -> List.of(n.baseModels).contains(baseModel))
        .findFirst()
        .map(n -> NodeModelShape.fromColumns(n.modelShape, n.modelExperts));
  }

  /** Every node (admins). */
  public List<NodeView> all() {
    return nodeRows.allWithFleet().stream().map(r -> view(r.node(), r.fleetRef())).toList();
  }

  NodeView view(Node n, String fleetRef) {
    boolean healthy =
        n.suspendedAt == null
            && n.unreachableSince == null
            && n.lastHeartbeatAt.isAfter(OffsetDateTime.now().minus(nodes.heartbeatTimeout()));
    return new NodeView(
        n.id.toString(),
        fleetRef,
        n.name,
        List.of(n.baseModels),
        n.accelerator,
        n.endpoint,
        n.maxConcurrency,
        List.of(n.loadedAdapters),
        n.lastHeartbeatAt,
        healthy,
        n.suspendedAt != null,
        n.unreachableCause);
  }
}
