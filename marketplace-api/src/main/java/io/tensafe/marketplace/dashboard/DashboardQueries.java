package io.tensafe.marketplace.dashboard;

import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import jakarta.transaction.Transactional;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The admin pages' per-node, per-adapter and per-client figures, read from the ledgers (charge,
 * usage events, gateway requests) and nothing else. Money is integer micro-units per currency.
 */
@ApplicationScoped
public class DashboardQueries {
  @Inject EntityManager em;

  /**
   * A node's live load and its HE cost.
   *
   * @param inFlight requests dispatched to it and not yet ended (started in the last 10 minutes)
   * @param heMillisPerToken HE milliseconds per processed token (prompt + completion) over its
   *     usage reports of the last 24 hours; negative when it reported none
   */
  /**
   * A node's load and its word against the marketplace's of the last 24 hours.
   *
   * @param heMillisPerToken -1 without reports
   * @param crossChecked completed requests whose node claimed a completion count
   * @param countDifferences those of them whose claim differed from the tokens the marketplace
   *     counted in what it relayed (and billed)
   * @param claimedOverCounted the node's claimed completion tokens minus the marketplace's count,
   *     summed over them (positive: it claims more than it served)
   */
  public record NodeLoad(
      long inFlight,
      double heMillisPerToken,
      long reports,
      long crossChecked,
      long countDifferences,
      long claimedOverCounted,
      String lastFailure) {
    /** A node with no requests and no reports. */
    public static final NodeLoad NONE = new NodeLoad(0, -1, 0, 0, 0, 0, null);
  }

  /** Per adapter, in one currency, over a period. */
  public record AdapterSales(
      String adapterId,
      String currency,
      long requests,
      long tokens,
      long amountMicros,
      long creatorMicros,
      long routeHits) {}

  /** Per client organisation, in one currency, over a period. */
  public record ClientUsage(
      String organisation, String currency, long requests, long tokens, long amountMicros) {}

  /** By node id (as text). */
  @Transactional
  public Map<String, NodeLoad> nodeLoads() {
    Query query =
        em.createNativeQuery(
            """
                SELECT n.id::text,
                  (SELECT count(*) FROM gateway_request g WHERE g.node_id = n.id AND g.ended_at IS NULL
                     AND g.started_at > now() - interval '10 minutes'),
                  u.he_millis, u.tokens, u.reports, x.checked, x.differing, x.over,
                  (SELECT g.node_error FROM gateway_request g WHERE g.node_id = n.id
                     AND g.node_error IS NOT NULL AND g.started_at > now() - interval '24 hours'
                   ORDER BY g.started_at DESC LIMIT 1)
                FROM node n CROSS JOIN LATERAL (
                  SELECT count(*) AS checked,
                         count(*) FILTER (WHERE node_completion_tokens
                                            <> delivered_completion_tokens) AS differing,
                         coalesce(sum(node_completion_tokens - delivered_completion_tokens), 0)
                           AS over
                  FROM gateway_request WHERE node_id = n.id AND node_completion_tokens IS NOT NULL
                    AND ended_at > now() - interval '24 hours') x
                CROSS JOIN LATERAL (
                  SELECT coalesce(sum(he_millis), 0) AS he_millis,
                         coalesce(sum(prompt_tokens + completion_tokens), 0) AS tokens,
                         count(*) AS reports
                  FROM usage_event WHERE node_id = n.id AND received_at > now() - interval '24 hours') u
                """);
    Map<String, NodeLoad> out = new LinkedHashMap<>();
    for (NodeLedger r : Rows.list(query, NodeLedger.class)) {
      out.put(
          r.nodeId(),
          new NodeLoad(
              r.inFlight(),
              r.tokens() == 0 ? -1 : r.heMillis() / r.tokens(),
              r.reports(),
              r.checked(),
              r.differing(),
              r.over(),
              r.lastFailure()));
    }
    return out;
  }

  /**
   * A node's requests in flight, its HE milliseconds, tokens and reports of the last day, its
   * cross-checked requests, and its words about its latest failure of the last day (null if none).
   */
  private record NodeLedger(
      String nodeId,
      long inFlight,
      double heMillis,
      long tokens,
      long reports,
      long checked,
      long differing,
      long over,
      String lastFailure) {}

  /** Charges of requests started in [from, to), per adapter and currency, by adapter id. */
  @Transactional
  public List<AdapterSales> adapterSales(OffsetDateTime from, OffsetDateTime to) {
    return Rows.list(
        em.createNativeQuery(
                """
                SELECT a.adapter_ref, c.currency, count(*), sum(c.prompt_tokens + c.completion_tokens),
                       sum(c.amount_micros), sum(c.creator_micros),
                       count(*) FILTER (WHERE c.route_reason IS NOT NULL)
                FROM charge c JOIN adapter_version v ON v.id = c.adapter_version_id
                              JOIN adapter a ON a.id = v.adapter_id
                WHERE c.started_at >= :from AND c.started_at < :to
                GROUP BY a.adapter_ref, c.currency ORDER BY a.adapter_ref, c.currency
                """)
            .setParameter("from", from)
            .setParameter("to", to),
        AdapterSales.class);
  }

  /** Charges of requests started in [from, to), per client organisation and currency. */
  @Transactional
  public List<ClientUsage> clientUsage(OffsetDateTime from, OffsetDateTime to) {
    return Rows.list(
        em.createNativeQuery(
                """
                SELECT o.slug, c.currency, count(*), sum(c.prompt_tokens + c.completion_tokens),
                       sum(c.amount_micros)
                FROM charge c JOIN organisation o ON o.id = c.client_organisation_id
                WHERE c.started_at >= :from AND c.started_at < :to
                GROUP BY o.slug, c.currency ORDER BY o.slug, c.currency
                """)
            .setParameter("from", from)
            .setParameter("to", to),
        ClientUsage.class);
  }

  /**
   * A creator's daily sales of each adapter, requests started in [from, to), oldest first.
   *
   * @param creatorOrganisation the creator's organisation id
   */
  @Transactional
  public List<CreatorDay> creatorDays(
      UUID creatorOrganisation, OffsetDateTime from, OffsetDateTime to) {
    return Rows.list(
        em.createNativeQuery(
                """
                SELECT (c.started_at AT TIME ZONE 'UTC')::date, a.adapter_ref, c.currency, count(*),
                       sum(c.prompt_tokens + c.completion_tokens), sum(c.amount_micros),
                       sum(c.creator_micros)
                FROM charge c JOIN adapter_version v ON v.id = c.adapter_version_id
                              JOIN adapter a ON a.id = v.adapter_id
                              JOIN creator cr ON cr.id = a.creator_id
                WHERE cr.organisation_id = :org AND c.started_at >= :from AND c.started_at < :to
                GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
                """)
            .setParameter("org", creatorOrganisation)
            .setParameter("from", from)
            .setParameter("to", to),
        CreatorDay.class);
  }

  /** One UTC day of one adapter's sales in one currency; {@code payoutMicros} is the creator's. */
  public record CreatorDay(
      LocalDate date,
      String adapterId,
      String currency,
      long requests,
      long tokens,
      long amountMicros,
      long payoutMicros) {}

  /**
   * Every adapter with its creator, suspension and versions ("1.0.0 published, 1.1.0 draft").
   *
   * @param suspended whether an admin suspended it (it left the catalogue)
   */
  public record AdapterRow(String adapterId, String creator, boolean suspended, String versions) {}

  @Transactional
  public List<AdapterRow> adapters() {
    return Rows.list(
        em.createNativeQuery(
            """
                SELECT a.adapter_ref, c.creator_ref, a.suspended_at IS NOT NULL,
                       coalesce(string_agg(v.version || ' ' || v.state, ', '
                         ORDER BY v.version_major, v.version_minor, v.version_patch), '')
                FROM adapter a JOIN creator c ON c.id = a.creator_id
                LEFT JOIN adapter_version v ON v.adapter_id = a.id
                GROUP BY a.adapter_ref, c.creator_ref, a.suspended_at ORDER BY a.adapter_ref
                """),
        AdapterRow.class);
  }

  /** Per creator, in one currency, over a period: what clients paid and the creator's share. */
  public record CreatorPayout(
      String creator, String currency, long requests, long amountMicros, long payoutMicros) {}

  @Transactional
  public List<CreatorPayout> creatorPayouts(OffsetDateTime from, OffsetDateTime to) {
    return Rows.list(
        em.createNativeQuery(
                """
                SELECT cr.creator_ref, c.currency, count(*), sum(c.amount_micros), sum(c.creator_micros)
                FROM charge c JOIN adapter_version v ON v.id = c.adapter_version_id
                              JOIN adapter a ON a.id = v.adapter_id
                              JOIN creator cr ON cr.id = a.creator_id
                WHERE c.started_at >= :from AND c.started_at < :to
                GROUP BY cr.creator_ref, c.currency ORDER BY cr.creator_ref, c.currency
                """)
            .setParameter("from", from)
            .setParameter("to", to),
        CreatorPayout.class);
  }

  /** Organisations that act as clients: they hold an API key, a charge or a DP budget. */
  @Transactional
  public List<String> clientOrganisations() {
    return em.createNativeQuery(
            """
            SELECT o.slug FROM organisation o
            WHERE EXISTS (SELECT 1 FROM api_key k WHERE k.organisation_id = o.id)
               OR EXISTS (SELECT 1 FROM charge c WHERE c.client_organisation_id = o.id)
               OR EXISTS (SELECT 1 FROM dp_budget b WHERE b.client_organisation_id = o.id)
            ORDER BY o.slug
            """,
            String.class)
        .getResultList();
  }

  /**
   * A price a creator scheduled for later (effective in the future).
   *
   * @param promptMicrosPer1kTokens micro-units per 1000 prompt tokens (completion likewise)
   */
  public record ScheduledPrice(
      String adapterId,
      String version,
      String currency,
      long promptMicrosPer1kTokens,
      long completionMicrosPer1kTokens,
      OffsetDateTime effectiveFrom) {}

  /** The future prices of a creator's versions, soonest first. */
  @Transactional
  public List<ScheduledPrice> scheduledPrices(UUID creatorOrganisation) {
    return Rows.list(
        em.createNativeQuery(
                """
                SELECT a.adapter_ref, v.version, p.currency, p.prompt_micros_per_1k_tokens,
                       p.completion_micros_per_1k_tokens, p.effective_from
                FROM adapter_price p JOIN adapter_version v ON v.id = p.adapter_version_id
                     JOIN adapter a ON a.id = v.adapter_id JOIN creator cr ON cr.id = a.creator_id
                WHERE cr.organisation_id = :org AND p.effective_from > now()
                ORDER BY p.effective_from, a.adapter_ref, v.version
                """)
            .setParameter("org", creatorOrganisation),
        ScheduledPrice.class);
  }
}
