package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.paging.Page;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** The published catalogue, and every tenant's versions for admins. */
@Path("/api")
@Produces(MediaType.APPLICATION_JSON)
public class CatalogResource {
  @Inject VersionQueries queries;

  /**
   * Published adapters: filter by domain and by a word in the id or keywords; sort by price,
   * popularity (billed requests in the last 30 days) or newest.
   */
  @Operation(
      summary = "List the published adapters a client may use, with prices and privacy policies")
  @GET
  @Path("/catalog")
  @RolesAllowed({"client", "creator", "admin"})
  public Page<VersionView> catalogue(
      @QueryParam("domain") @Pattern(regexp = "[a-z0-9][a-z0-9_-]{0,31}") String domain,
      @QueryParam("q") @Size(max = 64) String text,
      @QueryParam("sort") @DefaultValue("newest") @Pattern(regexp = "price|popular|newest")
          String sort,
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return queries.catalogue(domain, text, sort, page, size);
  }

  @Operation(summary = "List every adapter version on the marketplace (admins)")
  @GET
  @Path("/admin/adapter-versions")
  @RolesAllowed("admin")
  public Page<VersionView> all(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return queries.all(page, size);
  }
}
