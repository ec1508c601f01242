package io.tensafe.marketplace.audit;

import io.tensafe.marketplace.paging.Page;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code GET /api/admin/audit?q=&page=&size=}: the audit log, newest first, filtered by a
 * case-insensitive text over actor, action, target and details; what the admin page shows.
 */
@Path("/api/admin/audit")
@RolesAllowed("admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminAuditResource {
  @Inject AuditSearch audit;

  @Operation(summary = "Search the audit log of administrative actions")
  @GET
  public Page<AuditSearch.Row> search(
      @QueryParam("q") @Size(max = 200) String q,
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return audit.search(q, page, size);
  }
}
