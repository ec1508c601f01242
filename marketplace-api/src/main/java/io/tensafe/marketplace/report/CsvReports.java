package io.tensafe.marketplace.report;

import java.util.ArrayList;
import java.util.List;

/**
 * Reports as RFC 4180 CSV: one header, one row per line, then one {@code total} row per currency.
 * Money stays in integer micro-units so that a spreadsheet sums it exactly. A cell that a
 * spreadsheet would read as a formula is prefixed with an apostrophe.
 */
public final class CsvReports {
  private CsvReports() {}

  public static String render(Report report, boolean showsSplit) {
    StringBuilder out = new StringBuilder();
    List<String> header =
        new ArrayList<>(
            List.of(
                "dimension",
                "key",
                "currency",
                "requests",
                "prompt_tokens",
                "completion_tokens",
                "amount_micros"));
    if (showsSplit) {
      header.addAll(List.of("creator_micros", "platform_micros"));
    }
    row(out, header);
    for (ReportLine l : report.lines()) {
      row(
          out,
          cells(
              showsSplit,
              l.dimension(),
              l.key(),
              l.currency(),
              l.requests(),
              l.promptTokens(),
              l.completionTokens(),
              l.amountMicros(),
              l.creatorMicros(),
              l.platformMicros()));
    }
    for (ReportTotal t : report.totals()) {
      row(
          out,
          cells(
              showsSplit,
              "total",
              "",
              t.currency(),
              t.requests(),
              t.promptTokens(),
              t.completionTokens(),
              t.amountMicros(),
              t.creatorMicros(),
              t.platformMicros()));
    }
    return out.toString();
  }

  private static List<String> cells(
      boolean showsSplit,
      String dimension,
      String key,
      String currency,
      long requests,
      long prompt,
      long completion,
      long amount,
      Long creator,
      Long platform) {
    List<String> cells =
        new ArrayList<>(
            List.of(
                dimension,
                key,
                currency,
                Long.toString(requests),
                Long.toString(prompt),
                Long.toString(completion),
                Long.toString(amount)));
    if (showsSplit) {
      cells.add(Long.toString(creator));
      cells.add(Long.toString(platform));
    }
    return cells;
  }

  private static void row(StringBuilder out, List<String> cells) {
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      out.append(cell(cells.get(i)));
    }
    out.append("\r\n");
  }

  static String cell(String value) {
    String v = value;
    if (!v.isEmpty() && "=+-@\t\r".indexOf(v.charAt(0)) >= 0) {
      v = "'" + v;
    }
    if (v.indexOf(',') >= 0
        || v.indexOf('"') >= 0
        || v.indexOf('\n') >= 0
        || v.indexOf('\r') >= 0) {
      return '"' + v.replace("\"", "\"\"") + '"';
    }
    return v;
  }
}
