package io.tensafe.marketplace.report;

import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Sums the charge ledger for reports, in one read-only transaction per report so that lines and
 * totals see the same rows. A charge belongs to the period in which its request started.
 */
@ApplicationScoped
public class ReportQueries {
  @Inject EntityManager em;

  /** What report lines group by; each maps to one SQL expression over the joined ledger rows. */
  public enum Dimension {
    ADAPTER("a.adapter_ref || '@' || v.version"),
    CREATOR("cr.creator_ref"),
    CLIENT("co.slug"),
    NODE("coalesce(n.name, '(not dispatched)')"),
    DAY("to_char(c.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')"),
    /** Hosted or private (ADR 0017); charges the gateway did not dispatch count as hosted. */
    MODE("coalesce(g.mode, 'hosted')");

    private final String sql;

    Dimension(String sql) {
      this.sql = sql;
    }
  }

  /** Whose charges a report covers: one client organisation, one creator, or everyone. */
  public record Scope(UUID clientOrganisationId, UUID creatorId) {
    public static Scope client(UUID organisationId) {
      return new Scope(organisationId, null);
    }

    public static Scope creator(UUID creatorId) {
      return new Scope(null, creatorId);
    }

    public static Scope everyone() {
      return new Scope(null, null);
    }

    String where() {
      return (clientOrganisationId == null ? "" : " AND c.client_organisation_id = :client")
          + (creatorId == null ? "" : " AND a.creator_id = :creator");
    }
  }

  private static final String FROM =
      """
       FROM charge c
       JOIN adapter_version v ON v.id = c.adapter_version_id
       JOIN adapter a ON a.id = v.adapter_id
       JOIN creator cr ON cr.id = a.creator_id
       JOIN organisation co ON co.id = c.client_organisation_id
       LEFT JOIN gateway_request g ON g.request_id::text = c.request_id
       LEFT JOIN node n ON n.id = g.node_id
       WHERE c.started_at >= :from AND c.started_at < :to
      """;

  private static final String SUMS =
      "count(*), sum(c.prompt_tokens), sum(c.completion_tokens), sum(c.amount_micros),"
          + " sum(c.creator_micros), sum(c.platform_micros)";

  /**
   * The report of {@code kind} for {@code scope} over [from, to).
   *
   * @param party the party's id as the report names it
   * @param partyName its display name
   */
  @jakarta.transaction.Transactional
  public Report report(
      ReportKind kind,
      Scope scope,
      String party,
      String partyName,
      OffsetDateTime from,
      OffsetDateTime to) {
    List<ReportLine> lines = new ArrayList<>();
    for (Dimension d : kind.dimensions()) {
      // The dimension's name is a constant of this enum, never input.
      String sql =
          "SELECT '"
              + d.name().toLowerCase(java.util.Locale.ROOT)
              + "', "
              + d.sql
              + ", c.currency, "
              + SUMS
              + FROM
              + scope.where()
              + " GROUP BY 2, 3 ORDER BY 2, 3";
      for (ReportLine line :
          Rows.list(bind(em.createNativeQuery(sql), scope, from, to), ReportLine.class)) {
        lines.add(kind.showsSplit() ? line : line.withoutSplit());
      }
    }
    List<ReportTotal> totals = new ArrayList<>();
    String sql = "SELECT c.currency, " + SUMS + FROM + scope.where() + " GROUP BY 1 ORDER BY 1";
    for (ReportTotal total :
        Rows.list(bind(em.createNativeQuery(sql), scope, from, to), ReportTotal.class)) {
      totals.add(kind.showsSplit() ? total : total.withoutSplit());
    }
    return new Report(
        kind.id(), party, partyName, from, to, OffsetDateTime.now(ZoneOffset.UTC), lines, totals);
  }

  private static Query bind(Query q, Scope scope, OffsetDateTime from, OffsetDateTime to) {
    q.setParameter("from", from).setParameter("to", to);
    if (scope.clientOrganisationId() != null) {
      q.setParameter("client", scope.clientOrganisationId());
    }
    if (scope.creatorId() != null) {
      q.setParameter("creator", scope.creatorId());
    }
    return q;
  }
}
