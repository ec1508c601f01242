package io.tensafe.marketplace.billing;

import io.tensafe.marketplace.paging.Page;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Sums the charge ledger for one creator over a period, straight from the ledger rows. */
@ApplicationScoped
public class SalesQueries {
  @Inject EntityManager em;

  private static final String FROM =
      """
      FROM charge c
      JOIN adapter_version v ON v.id = c.adapter_version_id
      JOIN adapter a ON a.id = v.adapter_id
      WHERE a.creator_id = :creator AND c.started_at >= :from AND c.started_at < :to
      """;

  public SalesReport ofCreator(
      UUID creatorId, OffsetDateTime from, OffsetDateTime to, int page, int size) {
    long groups =
        ((Number)
                em.createNativeQuery(
                        "SELECT count(*) FROM (SELECT 1 "
                            + FROM
                            + " GROUP BY a.adapter_ref, v.version, c.currency) g")
                    .setParameter("creator", creatorId)
                    .setParameter("from", from)
                    .setParameter("to", to)
                    .getSingleResult())
            .longValue();
    List<?> rows =
        em.createNativeQuery(
                "SELECT a.adapter_ref, v.version, c.currency, count(*), sum(c.prompt_tokens),"
                    + " sum(c.completion_tokens), sum(c.amount_micros), sum(c.creator_micros),"
                    + " sum(c.platform_micros) "
                    + FROM
                    + " GROUP BY a.adapter_ref, v.version, c.currency"
                    + " ORDER BY a.adapter_ref, v.version, c.currency")
            .setParameter("creator", creatorId)
            .setParameter("from", from)
            .setParameter("to", to)
            .setFirstResult(page * size)
            .setMaxResults(size)
            .getResultList();
    List<SalesLine> lines = new ArrayList<>();
    for (Object o : rows) {
      Object[] r = (Object[]) o;
      lines.add(
          new SalesLine(
              (String) r[0],
              (String) r[1],
              r[2].toString(),
              number(r[3]),
              number(r[4]),
              number(r[5]),
              number(r[6]),
              number(r[7]),
              number(r[8])));
    }
    List<?> totals =
        em.createNativeQuery(
                "SELECT c.currency, count(*), sum(c.amount_micros), sum(c.creator_micros),"
                    + " sum(c.platform_micros) "
                    + FROM
                    + " GROUP BY c.currency ORDER BY c.currency")
            .setParameter("creator", creatorId)
            .setParameter("from", from)
            .setParameter("to", to)
            .getResultList();
    List<SalesTotal> sums = new ArrayList<>();
    for (Object o : totals) {
      Object[] r = (Object[]) o;
      sums.add(
          new SalesTotal(r[0].toString(), number(r[1]), number(r[2]), number(r[3]), number(r[4])));
    }
    return new SalesReport(from, to, new Page<>(lines, page, size, groups), sums);
  }

  private static long number(Object value) {
    return ((Number) value).longValue();
  }
}
