package io.tensafe.marketplace.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * One row of a billing report: the charge-ledger rows of a period that share a {@code dimension}
 * value and a currency, summed. Money is integer micro-units of {@code currency}, summed from the
 * ledger without rounding (each ledger row was rounded once, when it was charged: ADR 0008).
 *
 * @param dimension what the rows are grouped by: adapter, creator, client, node or day
 * @param key the group: {@code adapter@version}, a creator id, a client organisation's slug, a node
 *     name (or {@code (not dispatched)}), or a UTC date {@code yyyy-mm-dd}
 * @param requests ≥ 1
 * @param creatorMicros the creators' share, or null where the reader may not see the split (client
 *     invoices)
 * @param platformMicros the platform's share, likewise; creator + platform = amount when present
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReportLine(
    String dimension,
    String key,
    String currency,
    long requests,
    long promptTokens,
    long completionTokens,
    long amountMicros,
    Long creatorMicros,
    Long platformMicros) {

  /**
   * The columns after the key, for CSV and PDF: currency, requests, prompt and completion tokens,
   * amount and, when {@code showsSplit}, the creator's and platform's shares; money through {@code
   * money} (micro-units in).
   */
  List<String> columns(boolean showsSplit, LongFunction<String> money) {
    List<String> c =
        new ArrayList<>(
            List.of(
                currency,
                Long.toString(requests),
                Long.toString(promptTokens),
                Long.toString(completionTokens),
                money.apply(amountMicros)));
    if (showsSplit) {
      c.add(money.apply(creatorMicros));
      c.add(money.apply(platformMicros));
    }
    return c;
  }

  /** This line without the creator/platform split. */
  ReportLine withoutSplit() {
    return new ReportLine(
        dimension,
        key,
        currency,
        requests,
        promptTokens,
        completionTokens,
        amountMicros,
        null,
        null);
  }
}
