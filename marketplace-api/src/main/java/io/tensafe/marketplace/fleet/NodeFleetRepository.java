package io.tensafe.marketplace.fleet;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The registered fleets (public keys only). A fleet's id ({@code fleetRef}) and key id are unique
 * across all fleets, retired ones included; only active ({@code retiredAt} null) fleets take nodes
 * and packages.
 */
@ApplicationScoped
public class NodeFleetRepository implements PanacheRepositoryBase<NodeFleet, UUID> {

  /** Whether some fleet, active or retired, has this id or this key id. */
  public boolean taken(String fleetRef, String keyId) {
    return count("fleetRef = ?1 or keyId = ?2", fleetRef, keyId) > 0;
  }

  /** The active fleets, by id. */
  public List<NodeFleet> active() {
    return list("retiredAt is null", Sort.by("fleetRef"));
  }

  /** The active fleet with this id (its fleet_ref), if any. */
  public Optional<NodeFleet> activeByRef(String fleetRef) {
    return find("fleetRef = ?1 and retiredAt is null", fleetRef).firstResultOptional();
  }

  /** The active fleet with this key id (a package recipient id), if any. */
  public Optional<NodeFleet> activeByKeyId(String keyId) {
    return find("keyId = ?1 and retiredAt is null", keyId).firstResultOptional();
  }
}
