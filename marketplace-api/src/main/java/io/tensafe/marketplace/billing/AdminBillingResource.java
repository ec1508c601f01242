package io.tensafe.marketplace.billing;

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
import org.eclipse.microprofile.openapi.annotations.Operation;

/** {@code GET /api/admin/sales}: every creator's sales from the charge ledger, for admins. */
@Path("/api/admin/sales")
@RolesAllowed("admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminBillingResource {
  @Inject SalesQueries sales;

  @Operation(summary = "List charges across the marketplace (admins)")
  @GET
  public SalesReport all(
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    SalesPeriod period = SalesPeriod.parse(from, to);
    return sales.all(period.from(), period.to(), page, size);
  }
}
