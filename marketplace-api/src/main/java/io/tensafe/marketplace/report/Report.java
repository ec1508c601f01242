package io.tensafe.marketplace.report;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * A billing report as JSON; CSV and PDF render the same record.
 *
 * @param kind invoice, payout or revenue
 * @param party whom it is for: a client organisation's slug, a creator id, or {@code platform}
 * @param partyName a display name for the party
 * @param from the first instant of the period (inclusive), by request start time
 * @param to the end of the period (exclusive)
 * @param lines per dimension, ordered by dimension, key and currency; every dimension's lines sum
 *     to {@code totals} exactly
 * @param totals per currency, from the ledger
 */
public record Report(
    String kind,
    String party,
    String partyName,
    OffsetDateTime from,
    OffsetDateTime to,
    OffsetDateTime generatedAt,
    List<ReportLine> lines,
    List<ReportTotal> totals) {

  public Report {
    lines = List.copyOf(lines);
    totals = List.copyOf(totals);
  }
}
