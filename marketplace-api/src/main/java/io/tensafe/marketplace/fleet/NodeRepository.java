package io.tensafe.marketplace.fleet;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@link Node} rows as registration, heartbeats and admins see them. A node is its credential's
 * (the token subject, {@code clientId}) and name. Choosing nodes for a request ({@link
 * NodeDispatcher}) and the fleet's health ({@link NodeAvailabilityCheck}) read them in SQL, with
 * their leases and counts.
 */
@ApplicationScoped
public class NodeRepository implements PanacheRepositoryBase<Node, UUID> {

  /** A node with its fleet's public id. */
  public record NodeOfFleet(Node node, String fleetRef) {}

  /** This credential's node with this name, if registered. */
  public Optional<Node> own(String clientId, String name) {
    return find("clientId = ?1 and name = ?2", clientId, name).firstResultOptional();
  }

  /** Whether a node named {@code name} in the fleet belongs to a credential other than this one. */
  public boolean nameHeldByAnother(UUID fleetId, String name, String clientId) {
    return count(
            "fleetId = :f and name = :n and clientId <> :c",
            Parameters.with("f", fleetId).and("n", name).and("c", clientId))
        > 0;
  }

  /** The fleet's nodes that reported their model's shape, latest heartbeat first. */
  public List<Node> withShape(UUID fleetId) {
    return list(
        "fleetId = ?1 and modelShape is not null", Sort.descending("lastHeartbeatAt"), fleetId);
  }

  /** Every node with its fleet's public id, by fleet and name. */
  public List<NodeOfFleet> allWithFleet() {
    return getEntityManager()
        .createQuery(
            "select new io.tensafe.marketplace.fleet.NodeRepository$NodeOfFleet(n, f.fleetRef)"
                + " from Node n, NodeFleet f where f.id = n.fleetId order by f.fleetRef, n.name",
            NodeOfFleet.class)
        .getResultList();
  }
}
