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
      List<String> cells =
          new ArrayList<>(
              List.of(
                  l.dimension(),
                  l.key(),
                  l.currency(),
                  Long.toString(l.requests()),
                  Long.toString(l.promptTokens()),
                  Long.toString(l.completionTokens()),
                  Long.toString(l.amountMicros())));
      if (showsSplit) {
        cells.add(Long.toString(l.creatorMicros()));
        cells.add(Long.toString(l.platformMicros()));
      }
      row(out, cells);
    }
    for (ReportTotal t : report.totals()) {
      List<String> cells =
          new ArrayList<>(
              List.of(
                  "total",
                  "",
                  t.currency(),
                  Long.toString(t.requests()),
                  Long.toString(t.promptTokens()),
                  Long.toString(t.completionTokens()),
                  Long.toString(t.amountMicros())));
      if (showsSplit) {
        cells.add(Long.toString(t.creatorMicros()));
        cells.add(Long.toString(t.platformMicros()));
      }
      row(out, cells);
    }
    return out.toString();
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
