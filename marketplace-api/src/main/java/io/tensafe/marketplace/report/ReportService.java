package io.tensafe.marketplace.report;

import io.tensafe.marketplace.billing.SalesPeriod;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * Builds a report for a party and delivers it in the asked format, with a download file name.
 * Periods are [from, to) of request start times (ISO-8601 instants; default the last 30 days; at
 * most 366 days).
 */
@ApplicationScoped
public class ReportService {
  @Inject ReportQueries queries;
  @Inject EntityManager em;

  /** A party's public id and display name, as a report's heading names it. */
  private record Party(String id, String name) {}

  Response invoice(UUID organisation, ReportPeriod query) {
    Party org =
        Rows.single(
            em.createNativeQuery("SELECT slug, display_name FROM organisation WHERE id = :o")
                .setParameter("o", organisation),
            Party.class);
    return report(
        ReportKind.INVOICE, ReportQueries.Scope.client(organisation), org.id(), org.name(), query);
  }

  Response payout(UUID creator, ReportPeriod query) {
    String ref =
        (String)
            em.createNativeQuery("SELECT creator_ref FROM creator WHERE id = :c")
                .setParameter("c", creator)
                .getSingleResult();
    return report(ReportKind.PAYOUT, ReportQueries.Scope.creator(creator), ref, ref, query);
  }

  Response revenue(ReportPeriod query) {
    return report(
        ReportKind.REVENUE, ReportQueries.Scope.everyone(), "platform", "TenSafe platform", query);
  }

  /** Validates the format and period first, then sums the ledger and renders. */
  private Response report(
      ReportKind kind,
      ReportQueries.Scope scope,
      String party,
      String partyName,
      ReportPeriod query) {
    ReportFormat f = ReportFormat.parse(query.format);
    SalesPeriod period = SalesPeriod.parse(query.from, query.to);
    return deliver(
        queries.report(kind, scope, party, partyName, period.from(), period.to()), kind, f);
  }

  /** The id of the organisation with this slug, or a not-found problem. */
  UUID organisationBySlug(String slug) {
    return single("SELECT id FROM organisation WHERE slug = :k", slug, "organisation");
  }

  /** The id of the creator with this public id, or a not-found problem. */
  UUID creatorByRef(String ref) {
    return single("SELECT id FROM creator WHERE creator_ref = :k", ref, "creator");
  }

  private UUID single(String sql, String key, String what) {
    List<?> rows = em.createNativeQuery(sql).setParameter("k", key).getResultList();
    if (rows.isEmpty()) {
      throw ProblemTypes.notFound(what + " " + key);
    }
    return (UUID) rows.getFirst();
  }

  private static Response deliver(Report report, ReportKind kind, ReportFormat format) {
    Object body =
        switch (format) {
          case JSON -> report;
          case CSV -> CsvReports.render(report, kind.showsSplit()).getBytes(StandardCharsets.UTF_8);
          case PDF -> PdfReports.render(report, kind);
        };
    String file =
        "tensafe-"
            + kind.id()
            + "-"
            + report.party()
            + "-"
            + report.from().toLocalDate()
            + "-"
            + report.to().toLocalDate()
            + "."
            + format.extension();
    return Response.ok(body, format.mediaType())
        .header("Content-Disposition", "attachment; filename=\"" + file + "\"")
        .build();
  }
}
