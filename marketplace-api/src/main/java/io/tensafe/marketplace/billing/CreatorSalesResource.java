package io.tensafe.marketplace.billing;

import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * {@code GET /api/creator/sales}: the calling creator's sales from the charge ledger, for requests
 * started in [from, to) (ISO-8601 instants; default the last 30 days; at most 366 days).
 */
@Path("/api/creator/sales")
@RolesAllowed("creator")
@Produces(MediaType.APPLICATION_JSON)
public class CreatorSalesResource {
  static final Duration MAX_PERIOD = Duration.ofDays(366);

  @Inject CreatorService creators;
  @Inject SalesQueries sales;

  @GET
  public SalesReport mine(
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    OffsetDateTime end = to == null ? OffsetDateTime.now(ZoneOffset.UTC) : instant("to", to);
    OffsetDateTime start = from == null ? end.minusDays(30) : instant("from", from);
    if (!start.isBefore(end)) {
      throw ProblemTypes.validation("from must be before to");
    }
    if (Duration.between(start, end).compareTo(MAX_PERIOD) > 0) {
      throw ProblemTypes.validation("a sales period is at most 366 days");
    }
    return creators
        .currentCreator()
        .map(c -> sales.ofCreator(c.id, start, end, page, size))
        .orElseGet(
            () -> new SalesReport(start, end, new Page<>(List.of(), page, size, 0), List.of()));
  }

  private static OffsetDateTime instant(String name, String value) {
    try {
      return OffsetDateTime.parse(value);
    } catch (DateTimeParseException e) {
      throw ProblemTypes.validation(
          name + " must be an ISO-8601 date-time with offset, e.g. 2026-11-01T00:00:00Z");
    }
  }
}
