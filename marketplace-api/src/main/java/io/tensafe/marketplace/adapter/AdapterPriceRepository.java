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

  /** Whether a price of the version already takes effect at exactly {@code at}. */
  public boolean takesEffectAt(UUID versionId, OffsetDateTime at) {
    return count("adapterVersionId = ?1 and effectiveFrom = ?2", versionId, at) > 0;
  }
}
