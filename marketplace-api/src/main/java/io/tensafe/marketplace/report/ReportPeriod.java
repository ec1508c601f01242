package io.tensafe.marketplace.report;

import jakarta.ws.rs.QueryParam;

/**
 * A report's query: the period of request start times [{@code from}, {@code to}) as ISO-8601
 * instants (defaults: {@code to} now, {@code from} 30 days before it) and the {@code format}
 * ({@code json}, {@code csv} or {@code pdf}; default json). Checked by {@link ReportService}.
 */
public class ReportPeriod {
  @QueryParam("from")
  public String from;

  @QueryParam("to")
  public String to;

  @QueryParam("format")
  public String format;
}
