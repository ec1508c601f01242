package io.tensafe.marketplace.report;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A report's total in one currency, summed straight from the charge ledger (not from the lines), so
 * that a reader can check that every dimension's lines add up to it to the micro-unit.
 *
 * @param creatorMicros null on client invoices; creator + platform = amount when present
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReportTotal(
    String currency,
    long requests,
    long promptTokens,
    long completionTokens,
    long amountMicros,
    Long creatorMicros,
    Long platformMicros) {

  /** This total as a report line of dimension {@code total} with an empty key. */
  ReportLine asLine() {
    return new ReportLine(
        "total",
        "",
        currency,
        requests,
        promptTokens,
        completionTokens,
        amountMicros,
        creatorMicros,
        platformMicros);
  }

  ReportTotal withoutSplit() {
    return new ReportTotal(
        currency, requests, promptTokens, completionTokens, amountMicros, null, null);
  }
}
