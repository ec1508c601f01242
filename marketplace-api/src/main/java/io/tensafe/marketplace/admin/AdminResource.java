package io.tensafe.marketplace.admin;

import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code /api/admin/{kind}/{id}/suspend|unsuspend} for creators, adapters, api-keys, nodes, users
 * (organisations: {@code organisation.AdminOrganisationResource}).
 */
@Path("/api/admin/{kind}/{id}")
@RolesAllowed("admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {
  @Inject SuspensionService suspensions;

  @Operation(summary = "Suspend a creator, adapter, node or API key")
  @POST
  @Path("/suspend")
  public SuspensionState suspend(
      @PathParam("kind") @Pattern(regexp = "creators|adapters|api-keys|nodes|users") String kind,
      @PathParam("id") @Size(min = 1, max = 255) String id) {
    return suspensions.set(kind, id, true);
  }

  @Operation(summary = "Lift the suspension of a creator, adapter, node or API key")
  @POST
  @Path("/unsuspend")
  public SuspensionState unsuspend(
      @PathParam("kind") @Pattern(regexp = "creators|adapters|api-keys|nodes|users") String kind,
      @PathParam("id") @Size(min = 1, max = 255) String id) {
    return suspensions.set(kind, id, false);
  }
}
