package io.tensafe.marketplace.adapter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * From when a version being published serves requests that name its adapter without a version, and
 * {@code auto} (ADR 0009, addendum of 2026-11-26): a new version is a price change for those
 * clients, so one priced above the version it replaces waits for the same notice as a scheduled
 * rise ({@link CatalogConfig#priceRiseNotice()}), while that version keeps serving them.
 *
 * <p>Invariant: a version takes over requests named without a version at once only when no price a
 * client could pay for it within the notice ({@link AdapterPriceRepository#inForceFrom}, so a rise
 * scheduled while it was a draft counts too) {@linkplain PriceLevel#risesFrom rises from} the price
 * in force now of the version serving them now ({@code newest_version_at}, migration V30: the rule
 * the gateway routes by). An adapter's first version, or one published while no other serves,
 * replaces nothing and serves at once.
 */
@ApplicationScoped
class NewVersionNotice {
  @Inject EntityManager em;
  @Inject AdapterPriceRepository prices;
  @Inject CatalogConfig catalog;

  /**
   * When {@code v}, not published yet and being published at {@code now}, becomes its adapter's
   * newest: {@code now}, or the end of the notice from {@code now} when it is priced above the
   * version it replaces.
   */
  OffsetDateTime newestFrom(AdapterVersion v, OffsetDateTime now) {
    OffsetDateTime noticeEnds = now.plus(catalog.priceRiseNotice());
    Optional<PriceLevel> replaced =
        servingNow(v.adapterId, now).flatMap(id -> prices.inForceAt(id, now)).map(PriceLevel::of);
    if (replaced.isEmpty()) {
      return now;
    }
    List<AdapterPrice> own = prices.inForceFrom(v.id, now, noticeEnds);
    boolean rise = own.stream().map(PriceLevel::of).anyMatch(p -> p.risesFrom(replaced.get()));
    return rise ? noticeEnds : now;
  }

  /** The version serving requests named without a version at {@code now}, if one does. */
  private Optional<UUID> servingNow(UUID adapterId, OffsetDateTime now) {
    Object id =
        em.createNativeQuery("SELECT newest_version_at(:adapter, :at)")
            .setParameter("adapter", adapterId)
            .setParameter("at", now)
            .getSingleResult();
    return Optional.ofNullable((UUID) id);
  }
}
