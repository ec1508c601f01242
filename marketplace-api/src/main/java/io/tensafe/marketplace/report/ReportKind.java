package io.tensafe.marketplace.report;

import java.util.List;

/** The billing reports, each over a period [from, to) of request start times. */
public enum ReportKind {
  /**
   * A client organisation's invoice: line items per adapter version, then per mode (hosted or
   * private); no creator/platform split.
   */
  INVOICE("Invoice", List.of(ReportQueries.Dimension.ADAPTER, ReportQueries.Dimension.MODE), false),
  /**
   * A creator's payout statement: per adapter version, then per mode, with the creator's and
   * platform's shares.
   */
  PAYOUT(
      "Creator payout statement",
      List.of(ReportQueries.Dimension.ADAPTER, ReportQueries.Dimension.MODE),
      true),
  /** The platform's revenue summary: per adapter, creator, client, node, day and mode. */
  REVENUE("Revenue summary", List.of(ReportQueries.Dimension.values()), true);

  private final String title;
  private final List<ReportQueries.Dimension> dimensions;
  private final boolean showsSplit;

  ReportKind(String title, List<ReportQueries.Dimension> dimensions, boolean showsSplit) {
    this.title = title;
    this.dimensions = dimensions;
    this.showsSplit = showsSplit;
  }

  public String title() {
    return title;
  }

  List<ReportQueries.Dimension> dimensions() {
    return dimensions;
  }

  /** Whether the reader of this report sees the creator/platform split. */
  public boolean showsSplit() {
    return showsSplit;
  }

  /** The lower-case name used in URLs, file names and JSON. */
  public String id() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
