package io.tensafe.marketplace.autocap;

import io.tensafe.marketplace.apikey.PriceCap;
import io.tensafe.marketplace.validation.OrganisationSlug;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code /api/organisations/{slug}/auto-cap}: the most {@code auto} routes the organisation's
 * requests to, per 1k tokens ({@link AutoPriceCaps}); any member reads it, an owner sets it.
 */
@Path("/api/organisations/{slug}/auto-cap")
@RolesAllowed("client")
@Produces(MediaType.APPLICATION_JSON)
public class AutoCapResource {
  @Inject AutoPriceCaps caps;

  @Operation(summary = "Read the price ceiling auto routes your organisation's requests within")
  @GET
  public AutoCapView get(@PathParam("slug") @OrganisationSlug String slug) {
    return caps.ofMine(slug);
  }

  @Operation(summary = "Set the price ceiling auto routes your organisation's requests within")
  @PUT
  @Consumes(MediaType.APPLICATION_JSON)
  public AutoCapView set(
      @PathParam("slug") @OrganisationSlug String slug, @NotNull @Valid PriceCap cap) {
    return caps.set(slug, cap);
  }
}
