package io.tensafe.marketplace.adapter;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@link AdapterVersion} rows, one per uploaded package. A version's package, policy and
 * manifest never change after upload; only {@code state} and {@code publishedAt} do. The catalogue,
 * which joins each version to its price in force, is {@link VersionQueries}, in SQL.
 */
@ApplicationScoped
public class AdapterVersionRepository implements PanacheRepositoryBase<AdapterVersion, UUID> {

  /** {@code adapterRef@version} if the adapter is this creator's; empty for anyone else's. */
  public Optional<AdapterVersion> ofCreator(String adapterRef, UUID creatorId, String version) {
    return find(
            "select v from AdapterVersion v, Adapter a where v.adapterId = a.id and a.adapterRef"
                + " = :r and a.creatorId = :c and v.version = :v",
            Parameters.with("r", adapterRef).and("c", creatorId).and("v", version))
        .firstResultOptional();
  }

  /** {@code adapterRef@version} if it is encrypted to this fleet and not suspended. */
  public Optional<AdapterVersion> forFleet(String adapterRef, String version, UUID fleetId) {
    return find(
            "select v from AdapterVersion v, Adapter a where v.adapterId = a.id and a.adapterRef"
                + " = :r and v.version = :v and v.fleetId = :f and v.state <> 'suspended'",
            Parameters.with("r", adapterRef).and("v", version).and("f", fleetId))
        .firstResultOptional();
  }

  /**
   * Whether the adapter has a version at or above {@code major.minor.patch}: a new upload must be
   * strictly newer than every version before it.
   */
  public boolean hasAtLeast(UUID adapterId, int major, int minor, int patch) {
    return count(
            "adapterId = :a and (versionMajor > :ma or (versionMajor = :ma and (versionMinor > :mi"
                + " or (versionMinor = :mi and versionPatch >= :pa))))",
            Parameters.with("a", adapterId).and("ma", major).and("mi", minor).and("pa", patch))
        > 0;
  }
}
