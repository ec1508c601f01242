package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import java.util.Map;
import java.util.UUID;

/**
 * Reads adapter versions with their price in effect now (the price row with the latest {@code
 * effective_from} not after the current time), filtered by who may see them.
 */
@ApplicationScoped
public class VersionQueries {
  @Inject EntityManager em;

  private static final String SELECT =
      """
      SELECT a.adapter_ref, v.version, v.state, v.base_model, v.rank, v.domain, p.currency,
             p.prompt_micros_per_1k_tokens, p.completion_micros_per_1k_tokens, v.package_sha256,
             v.package_bytes, v.uploaded_at, n.prompt_micros_per_1k_tokens,
             n.completion_micros_per_1k_tokens, n.effective_from,
             CASE WHEN v.published_at IS NOT NULL THEN coalesce(v.newest_from, v.published_at)
             END,
             (v.manifest->'dp_policy')::text, (v.manifest->'measured_effect')::text,
             json_build_object('offered', coalesce(pm.offered, false),
                               'tokensPerPeriod', pm.tokens_per_period,
                               'periodDays', pm.period_days,
                               'extractionTokens', (SELECT min((t->'shape'->>1)::bigint) FROM jsonb_array_elements(v.manifest->'lora'->'tensors') t WHERE t->>'name' LIKE '%.lora_A.weight'))::text
      FROM adapter_version v
      LEFT JOIN private_mode_offer pm ON pm.adapter_version_id = v.id
      JOIN adapter a ON a.id = v.adapter_id
      JOIN creator c ON c.id = a.creator_id
      JOIN LATERAL (SELECT * FROM adapter_price p WHERE p.adapter_version_id = v.id
                    AND p.effective_from <= now() ORDER BY p.effective_from DESC LIMIT 1) p ON true
      LEFT JOIN LATERAL (SELECT * FROM adapter_price q WHERE q.adapter_version_id = v.id
                    AND q.effective_from > now() ORDER BY q.effective_from LIMIT 1) n ON true
      """;

  private static final String COUNT =
      """
      SELECT count(*)
      FROM adapter_version v
      JOIN adapter a ON a.id = v.adapter_id
      JOIN creator c ON c.id = a.creator_id
      """;

  /** Versions of the creator with this id. */
  public Page<VersionView> ofCreator(UUID creatorId, int page, int size) {
    return page(
        "WHERE a.creator_id = :creator",
        Map.of("creator", creatorId),
        "a.adapter_ref, v.uploaded_at",
        page,
        size);
  }

  /** Every version of every tenant (admins only). */
  public Page<VersionView> all(int page, int size) {
    return page("", Map.of(), "v.uploaded_at DESC", page, size);
  }

  /**
   * The published catalogue: published versions of unsuspended adapters and creators, optionally
   * filtered by domain and by a word found in the adapter id or keywords.
   *
   * @param sort "price" (prompt price ascending), "popular" (most billed requests in the last 30
   *     days first, from the charge ledger) or "newest"
   */
  public Page<VersionView> catalogue(String domain, String text, String sort, int page, int size) {
    StringBuilder where =
        new StringBuilder(
            "WHERE v.state = 'published' AND a.suspended_at IS NULL AND c.suspended_at IS NULL");
    java.util.HashMap<String, Object> params = new java.util.HashMap<>();
    if (domain != null && !domain.isBlank()) {
      where.append(" AND v.domain = :domain");
      params.put("domain", domain);
    }
    if (text != null && !text.isBlank()) {
      where.append(
          " AND (a.adapter_ref ILIKE :like OR EXISTS (SELECT 1 FROM unnest(v.keywords) k WHERE k ILIKE :like))");
      params.put(
          "like", "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
    }
    String order =
        switch (sort) {
          case "price" -> "p.prompt_micros_per_1k_tokens, a.adapter_ref";
          case "popular" ->
              "(SELECT count(*) FROM charge ch WHERE ch.adapter_version_id = v.id"
                  + " AND ch.started_at > now() - interval '30 days') DESC, v.uploaded_at DESC";
          default -> "v.uploaded_at DESC";
        };
    return page(where.toString(), params, order, page, size);
  }

  private Page<VersionView> page(
      String where, Map<String, Object> params, String order, int page, int size) {
    // Every version gets its first price row at upload, effective at once, so the price join never
    // drops a row and the count can skip it.
    Query count = em.createNativeQuery(COUNT + where);
    Query rows =
        em.createNativeQuery(
            SELECT + where + " ORDER BY " + order + " LIMIT :limit OFFSET :offset");
    params.forEach(
        (k, v) -> {
          count.setParameter(k, v);
          rows.setParameter(k, v);
        });
    rows.setParameter("limit", size);
    rows.setParameter("offset", (long) page * size);
    long total = ((Number) count.getSingleResult()).longValue();
    return new Page<>(Rows.list(rows, VersionView.class), page, size, total);
  }
}
