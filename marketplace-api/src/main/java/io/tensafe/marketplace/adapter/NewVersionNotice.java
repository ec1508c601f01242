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
 * the gateway routes by). When none serves them now (the creator unpublished every version), it is
 * judged against every other version that served them before (published once, its own notice
 * ended): unpublishing first and then publishing a dearer version does not skip the notice. An
 * adapter's first version, or one published when no other ever served, replaces nothing and serves
 * at once.
 *
 * <p>Unpublishing is a price change too (ADR 0038): when the version unpublished serves those
 * requests now, every other published version priced above it (any price within the notice) is held
 * back for the notice ({@link #beforeUnpublish}), so the next cheaper one, or none, serves them
 * meanwhile: a client is never moved to a dearer version without notice.
 */
@ApplicationScoped
class NewVersionNotice {
  @Inject EntityManager em;
  @Inject AdapterPriceRepository prices;
  @Inject CatalogConfig catalog;

  /**
   * When {@code v}, not published yet and being published at {@code now}, becomes its adapter's
   * newest: {@code now}, or the end of the notice from {@code now} when it is priced above a
   * version it replaces ({@link #replaced}).
   */
  OffsetDateTime newestFrom(AdapterVersion v, OffsetDateTime now) {
    OffsetDateTime noticeEnds = now.plus(catalog.priceRiseNotice());
    List<PriceLevel> replaced =
        replaced(v, now).stream()
            .flatMap(id -> prices.inForceAt(id, now).stream())
            .map(PriceLevel::of)
            .toList();
    if (replaced.isEmpty()) {
      return now;
    }
    List<AdapterPrice> own = prices.inForceFrom(v.id, now, noticeEnds);
    boolean rise =
        own.stream().map(PriceLevel::of).anyMatch(p -> replaced.stream().anyMatch(p::risesFrom));
    return rise ? noticeEnds : now;
  }

  /**
   * Before {@code v} is unpublished at {@code now}: when it serves requests named without a version
   * now, each other published version of its adapter with a price within the notice that rises from
   * {@code v}'s price now may serve them only from the notice's end ({@code newest_from} moved
   * there). Nothing changes when {@code v} does not serve them now.
   */
  void beforeUnpublish(AdapterVersion v, OffsetDateTime now) {
    if (!servingNow(v.adapterId, now).filter(v.id::equals).isPresent()) {
      return;
    }
    Optional<PriceLevel> leaving = prices.inForceAt(v.id, now).map(PriceLevel::of);
    if (leaving.isEmpty()) {
      return;
    }
    OffsetDateTime noticeEnds = now.plus(catalog.priceRiseNotice());
    List<UUID> others =
        em
            .createNativeQuery(
                "SELECT id FROM adapter_version WHERE adapter_id = :adapter AND id <> :v"
                    + " AND state = 'published'",
                UUID.class)
            .setParameter("adapter", v.adapterId)
            .setParameter("v", v.id)
            .getResultList()
            .stream()
            .map(UUID.class::cast)
            .toList();
    for (UUID other : others) {
      boolean rise =
          prices.inForceFrom(other, now, noticeEnds).stream()
              .map(PriceLevel::of)
              .anyMatch(p -> p.risesFrom(leaving.get()));
      if (rise) {
        em.createNativeQuery(
                "UPDATE adapter_version SET newest_from ="
                    + " greatest(coalesce(newest_from, published_at), :ends) WHERE id = :id")
            .setParameter("ends", noticeEnds)
            .setParameter("id", other)
            .executeUpdate();
      }
    }
  }

  /**
   * The versions {@code v} replaces for requests named without a version at {@code now}: the one
   * serving them now; when none does, every other version of its adapter that served them before
   * (published once, {@code newest_from}, or for one published before migration V30 its
   * publication, passed), since which of them served last is not recorded. Empty when none ever
   * served.
   */
  private List<UUID> replaced(AdapterVersion v, OffsetDateTime now) {
    Optional<UUID> serving = servingNow(v.adapterId, now);
    if (serving.isPresent()) {
      return List.of(serving.get());
    }
    return em
        .createNativeQuery(
            "SELECT id FROM adapter_version WHERE adapter_id = :adapter AND id <> :v"
                + " AND published_at IS NOT NULL AND coalesce(newest_from, published_at) <= :at",
            UUID.class)
        .setParameter("adapter", v.adapterId)
        .setParameter("v", v.id)
        .setParameter("at", now)
        .getResultList()
        .stream()
        .map(UUID.class::cast)
        .toList();
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
