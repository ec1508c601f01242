package io.tensafe.marketplace.billing;

import io.tensafe.marketplace.paging.Page;
import java.time.OffsetDateTime;
import java.util.List;

/** A creator's sales for requests started in [from, to): lines by version, totals by currency. */
public record SalesReport(
    OffsetDateTime from, OffsetDateTime to, Page<SalesLine> lines, List<SalesTotal> totals) {}
