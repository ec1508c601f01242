package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.paging.Page;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** Fleet public keys: published to everyone, registered by admins. */
@Path("/api")
@Produces(MediaType.APPLICATION_JSON)
public class FleetResource {
  @Inject FleetService fleets;

  /** The active fleets' public key files, so creators know whom to encrypt packages for. */
  @GET
  @Path("/fleets/keys")
  @PermitAll
  public Page<FleetView> keys(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return Page.of(fleets.active(), page, size);
  }

  /** Registers a fleet by its public key file ({@code tgsp keygen fleet} writes it). */
  @POST
  @Path("/admin/fleets")
  @RolesAllowed("admin")
  @Consumes(MediaType.APPLICATION_JSON)
  public Response register(@NotNull @Size(min = 2, max = 65536) byte[] publicKeyFile) {
    return Response.status(201).entity(fleets.register(publicKeyFile)).build();
  }
}
