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
    List<ReportLine> rows = new ArrayList<>(report.lines());
    report.totals().forEach(t -> rows.add(t.asLine()));
    for (ReportLine l : rows) {
      List<String> cells = new ArrayList<>(List.of(l.dimension(), l.key()));
      cells.addAll(l.columns(showsSplit, Long::toString));
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
