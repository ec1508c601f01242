package io.tensafe.marketplace.adapter;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A version's price history (append-only: the database refuses updates and deletes). Every version
 * has a row effective from its upload on, so a version always has a first price, and a price before
 * any time after its upload. Which price a charge pays is {@code billing.ChargeLedger}'s, in SQL.
 */
@ApplicationScoped
public class AdapterPriceRepository implements PanacheRepository<AdapterPrice> {

  /** The version's first price (its upload's); every later one is in the same currency. */
  public AdapterPrice first(UUID versionId) {
    return find("adapterVersionId", Sort.by("effectiveFrom"), versionId)
        .firstResultOptional()
        .orElseThrow(() -> new IllegalStateException("version " + versionId + " has no price"));
  }

  /** The price in force just before {@code at} (which must be after the version's upload). */
  public AdapterPrice inForceBefore(UUID versionId, OffsetDateTime at) {
    return find(
            "adapterVersionId = ?1 and effectiveFrom < ?2",
            Sort.descending("effectiveFrom"),
            versionId,
            at)
        .firstResultOptional()
        .orElseThrow(() -> new IllegalStateException("version " + versionId + " has no price"));
  }

  /** The price in force at {@code at}, if one is (none before the version's upload). */
  public java.util.Optional<AdapterPrice> inForceAt(UUID versionId, OffsetDateTime at) {
    return find(
            "adapterVersionId = ?1 and effectiveFrom <= ?2",
            Sort.descending("effectiveFrom"),
            versionId,
            at)
        .firstResultOptional();
  }

  /**
   * The version's prices a client may pay from {@code at} until just before {@code until}: the one
   * in force at {@code at} (if any) and every one scheduled to take effect before {@code until}.
   */
  public java.util.List<AdapterPrice> inForceFrom(
      UUID versionId, OffsetDateTime at, OffsetDateTime until) {
    java.util.List<AdapterPrice> rows =
        list(
            "adapterVersionId = ?1 and effectiveFrom < ?2",
            Sort.ascending("effectiveFrom"),
            versionId,
            until);
    int first = 0;
    for (int i = 0; i < rows.size(); i++) {
      if (!rows.get(i).effectiveFrom.isAfter(at)) {
        first = i;
      }
    }
    return rows.subList(first, rows.size());
  }

  /** Whether a price of the version already takes effect at exactly {@code at}. */
  public boolean takesEffectAt(UUID versionId, OffsetDateTime at) {
    return count("adapterVersionId = ?1 and effectiveFrom = ?2", versionId, at) > 0;
  }
}
