package io.tensafe.marketplace.gateway;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * This replica's copy of the served catalogue: every published version of an adapter whose adapter
 * and creator are not suspended, with its whole price history, and the {@code catalogue_revision}
 * (migration V29) it was read at. The gateway resolves a request's version from this copy; the
 * admission's database call checks that the version is still served at the price it was routed at
 * ({@code version_still_served}) and answers the revision now, and an older copy is read again in
 * the background ({@link #noteRevision}), or at once when the request's own version changed ({@link
 * #reloadAfter}). Thread-safe; a copy is immutable once read.
 */
@ApplicationScoped
public class ServedCatalogue {
  @Inject EntityManager em;

  private volatile Copy copy;

  /** A price row ({@code id}): in force from {@code effectiveFrom} until the next row's. */
  record Price(
      long id, Instant effectiveFrom, String currency, long promptMicros, long completionMicros) {}

  /**
   * A published version, with its prices by ascending {@code effective_from} and the time from
   * which it may serve as its adapter's newest ({@code newest_from}, migration V30; null: at once).
   */
  record Entry(
      String adapterRef,
      UUID adapterUuid,
      String version,
      int major,
      int minor,
      int patch,
      UUID fleetId,
      String baseModel,
      List<String> keywords,
      UUID versionId,
      Instant newestFrom,
      List<Price> prices) {

    /** The price in force at {@code at}, if one is. */
    Optional<Price> priceAt(Instant at) {
      Price found = null;
      for (Price p : prices) {
        if (p.effectiveFrom().isAfter(at)) {
          break;
        }
        found = p;
      }
      return Optional.ofNullable(found);
    }

    /**
     * Whether, at {@code at}, it may serve requests that name its adapter without a version: a
     * price is in force and its notice as the newest (if any) has ended.
     */
    boolean mayBeNewestAt(Instant at) {
      return (newestFrom == null || !newestFrom.isAfter(at)) && priceAt(at).isPresent();
    }

    /**
     * The version of {@code versions} (one adapter's) that requests naming the adapter without a
     * version are served by at {@code at}: the highest that {@link #mayBeNewestAt} then. The rule
     * {@code newest_version_at} (migration V30) writes in SQL, which the admission checks it by.
     */
    static Optional<Entry> newestAt(List<Entry> versions, Instant at) {
      return versions.stream().filter(v -> v.mayBeNewestAt(at)).max(BY_VERSION);
    }

    static final Comparator<Entry> BY_VERSION =
        Comparator.comparingInt(Entry::major)
            .thenComparingInt(Entry::minor)
            .thenComparingInt(Entry::patch);
  }

  /** A copy: the revision it was read at, and its versions by adapter id, oldest adapter first. */
  public record Copy(long revision, Map<String, List<Entry>> byAdapter) {}

  /**
   * What a request is routed from: a copy, and the time whose prices apply (the request's start,
   * which its bill and the admission's check use too).
   */
  public record Snapshot(Copy copy, Instant at) {}

  /** The copy in memory, read first if there is none. */
  Copy copy() {
    Copy c = copy;
    return c != null ? c : reload();
  }

  /**
   * Notes that the catalogue is at {@code revision} now (as the admission's call answered): a copy
   * older than that is read again in the background, at most once per {@link #MIN_RELOAD_NANOS}, so
   * that a creator who writes in a loop costs each replica a few reads a second, not one per
   * request.
   */
  void noteRevision(long revision) {
    Copy c = copy;
    if (c == null || revision <= c.revision() || !refreshing.compareAndSet(false, true)) {
      return;
    }
    long wait = Math.max(0, lastReadNanos + MIN_RELOAD_NANOS - System.nanoTime());
    refresher.schedule(
        () -> {
          try {
            reload();
          } catch (RuntimeException e) {
            io.quarkus.logging.Log.warnf("reading the catalogue again failed: %s", e.toString());
          } finally {
            refreshing.set(false);
          }
        },
        wait,
        java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /** The least time between two background reads: 250 ms. */
  private static final long MIN_RELOAD_NANOS = 250_000_000L;

  private final java.util.concurrent.atomic.AtomicBoolean refreshing =
      new java.util.concurrent.atomic.AtomicBoolean();
  private volatile long lastReadNanos = System.nanoTime() - MIN_RELOAD_NANOS;
  private final java.util.concurrent.ScheduledExecutorService refresher =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("catalogue-refresh").daemon().unstarted(r));

  @jakarta.annotation.PreDestroy
  void stop() {
    refresher.shutdownNow();
  }

  /** Reads the catalogue (two statements in one transaction of its own). */
  synchronized Copy reload() {
    Copy c = QuarkusTransaction.requiringNew().call(this::read);
    lastReadNanos = System.nanoTime();
    copy = c;
    return c;
  }

  /**
   * Reads the catalogue again after an admission found the copy read at {@code stale} out of date,
   * unless another thread has already done so or, when {@code throttled}, the copy was read less
   * than {@link #MIN_RELOAD_NANOS} ago (the caller then admits from it without the catalogue's
   * check: a copy at most that old).
   */
  synchronized Copy reloadAfter(long stale, boolean throttled) {
    Copy c = copy;
    if (c != null && c.revision() != stale) {
      return c;
    }
    if (c != null && throttled && System.nanoTime() - lastReadNanos < MIN_RELOAD_NANOS) {
      return c;
    }
    return reload();
  }

  /**
   * Reads the catalogue again only if it changed since the copy was read: one statement when it did
   * not. For answers that list it ({@code /v1/models}, the routing candidates).
   */
  Copy current() {
    Copy c = copy;
    if (c == null) {
      return reload();
    }
    long now =
        QuarkusTransaction.requiringNew()
            .call(
                () ->
                    ((Number)
                            em.createNativeQuery("SELECT revision FROM catalogue_revision")
                                .getSingleResult())
                        .longValue());
    return now == c.revision() ? c : reload();
  }

  private static final String ROWS =
      """
      SELECT a.adapter_ref, a.id, v.version, v.version_major, v.version_minor, v.version_patch,
             v.fleet_id, v.base_model, array_to_json(v.keywords)::text, v.id, v.newest_from,
             p.id, p.effective_from, p.currency, p.prompt_micros_per_1k_tokens,
             p.completion_micros_per_1k_tokens
      FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
      JOIN creator c ON c.id = a.creator_id
      LEFT JOIN adapter_price p ON p.adapter_version_id = v.id
      WHERE v.state = 'published' AND a.suspended_at IS NULL AND c.suspended_at IS NULL
      ORDER BY a.created_at, a.adapter_ref, v.id, p.effective_from
      """;

  /** A row of {@link #ROWS}: a version and one of its prices (all null when it has none). */
  private record Row(
      String adapterRef,
      UUID adapterUuid,
      String version,
      int major,
      int minor,
      int patch,
      UUID fleetId,
      String baseModel,
      String keywordsJson,
      UUID versionId,
      OffsetDateTime newestFrom,
      Long priceId,
      OffsetDateTime effectiveFrom,
      String currency,
      Long promptMicros,
      Long completionMicros) {}

  private Copy read() {
    // The revision first: a write between the two statements leaves a copy newer than its revision,
    // which costs one more read, never an admission from an older copy.
    long revision =
        ((Number) em.createNativeQuery("SELECT revision FROM catalogue_revision").getSingleResult())
            .longValue();
    Map<UUID, List<Price>> prices = new LinkedHashMap<>();
    Map<UUID, Row> versions = new LinkedHashMap<>();
    for (Row r : Rows.list(em.createNativeQuery(ROWS), Row.class)) {
      versions.putIfAbsent(r.versionId(), r);
      List<Price> list = prices.computeIfAbsent(r.versionId(), id -> new ArrayList<>());
      if (r.effectiveFrom() != null) {
        list.add(
            new Price(
                r.priceId(),
                r.effectiveFrom().toInstant(),
                r.currency().trim(),
                r.promptMicros(),
                r.completionMicros()));
      }
    }
    Map<String, List<Entry>> byAdapter = new LinkedHashMap<>();
    for (Row r : versions.values()) {
      List<Entry> entries = byAdapter.computeIfAbsent(r.adapterRef(), ref -> new ArrayList<>());
      entries.add(
          new Entry(
              r.adapterRef(),
              r.adapterUuid(),
              r.version(),
              r.major(),
              r.minor(),
              r.patch(),
              r.fleetId(),
              r.baseModel(),
              keywords(r.keywordsJson()),
              r.versionId(),
              r.newestFrom() == null ? null : r.newestFrom().toInstant(),
              List.copyOf(prices.get(r.versionId()))));
    }
    byAdapter.replaceAll((ref, list) -> List.copyOf(list));
    return new Copy(revision, java.util.Collections.unmodifiableMap(byAdapter));
  }

  /**
   * The keywords from their JSON array text: a native query returning a SQL array makes Hibernate
   * resolve its type through an exception on every call, which the hot path cannot afford.
   */
  private static List<String> keywords(String json) {
    if (json == null) {
      return List.of();
    }
    try {
      return List.of(JSON.readValue(json, String[].class));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("adapter_version.keywords is not an array of text", e);
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();
}
