package io.tensafe.marketplace.billing;

import io.tensafe.marketplace.creator.CreatorService;
import io.tensafe.marketplace.paging.Page;
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
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code GET /api/creator/sales}: the calling creator's sales from the charge ledger, for requests
 * started in [from, to) (ISO-8601 instants; default the last 30 days; at most 366 days).
 */
@Path("/api/creator/sales")
@RolesAllowed("creator")
@Produces(MediaType.APPLICATION_JSON)
public class CreatorSalesResource {
  @Inject CreatorService creators;
  @Inject SalesQueries sales;

  @Operation(summary = "List the charges for your adapters and your share of them")
  @GET
  public SalesReport mine(
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    SalesPeriod period = SalesPeriod.parse(from, to);
    return creators
        .currentCreator()
        .map(c -> sales.ofCreator(c.id, period.from(), period.to(), page, size))
        .orElseGet(
            () ->
                new SalesReport(
                    period.from(), period.to(), new Page<>(List.of(), page, size, 0), List.of()));
  }
}
