package io.tensafe.marketplace.billing;

import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/** Sums the charge ledger over a period, for one creator or all, straight from the ledger rows. */
@ApplicationScoped
public class SalesQueries {
  @Inject EntityManager em;

  private static final String ALL =
      """
      FROM charge c
      JOIN adapter_version v ON v.id = c.adapter_version_id
      JOIN adapter a ON a.id = v.adapter_id
      WHERE c.started_at >= :from AND c.started_at < :to
      """;

  private static final String OF_CREATOR = ALL + " AND a.creator_id = :creator";

  private static final String GROUP = " GROUP BY a.adapter_ref, v.version, c.currency";

  /** One creator's sales. */
  public SalesReport ofCreator(
      UUID creatorId, OffsetDateTime from, OffsetDateTime to, int page, int size) {
    return report(OF_CREATOR, creatorId, from, to, page, size);
  }

  /** Every creator's sales (admins). */
  public SalesReport all(OffsetDateTime from, OffsetDateTime to, int page, int size) {
    return report(ALL, null, from, to, page, size);
  }

  private SalesReport report(
      String source, UUID creatorId, OffsetDateTime from, OffsetDateTime to, int page, int size) {
    long groups =
        number(
            bind(
                    em.createNativeQuery(
                        "SELECT count(*) FROM (SELECT 1 " + source + GROUP + ") g"),
                    creatorId,
                    from,
                    to)
                .getSingleResult());
    Query lines =
        bind(
            em.createNativeQuery(
                "SELECT a.adapter_ref, v.version, c.currency, count(*), sum(c.prompt_tokens),"
                    + " sum(c.completion_tokens), sum(c.amount_micros), sum(c.creator_micros),"
                    + " sum(c.platform_micros) "
                    + source
                    + GROUP
                    + " ORDER BY a.adapter_ref, v.version, c.currency"),
            creatorId,
            from,
            to);
    List<SalesLine> items =
        Rows.list(lines.setFirstResult(page * size).setMaxResults(size), SalesLine.class);
    Query totals =
        bind(
            em.createNativeQuery(
                "SELECT c.currency, count(*), sum(c.amount_micros), sum(c.creator_micros),"
                    + " sum(c.platform_micros) "
                    + source
                    + " GROUP BY c.currency ORDER BY c.currency"),
            creatorId,
            from,
            to);
    List<SalesTotal> sums = Rows.list(totals, SalesTotal.class);
    return new SalesReport(from, to, new Page<>(items, page, size, groups), sums);
  }

  private static Query bind(Query query, UUID creatorId, OffsetDateTime from, OffsetDateTime to) {
    query.setParameter("from", from).setParameter("to", to);
    return creatorId == null ? query : query.setParameter("creator", creatorId);
  }

  private static long number(Object value) {
    return io.tensafe.marketplace.sql.SqlValues.toLongExact(value);
  }
}
