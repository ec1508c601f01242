package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.validation.PublicId;
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
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;

/** Fleet public keys: published to everyone, registered by admins. */
@Path("/api")
@Produces(MediaType.APPLICATION_JSON)
public class FleetResource {
  @Inject FleetService fleets;

  /** The active fleets' public key files, so creators know whom to encrypt packages for. */
  @Operation(summary = "List the active fleets and their public key files")
  @GET
  @Path("/fleets/keys")
  @PermitAll
  public Page<FleetView> keys(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return Page.of(fleets.active(), page, size);
  }

  /**
   * One active fleet's public key file, as the file itself: {@code curl -o fleet.pub
   * .../api/fleets/FLEET/key.pub}, then {@code tgsp pack --recipient fleet.pub}. 404 for an unknown
   * or retired fleet.
   */
  @Operation(summary = "Download one fleet's public key file (fleet.pub) for tgsp pack --recipient")
  @APIResponseSchema(
      value = io.tensafe.marketplace.apidoc.KeyFile.class,
      responseCode = "200",
      responseDescription = "The fleet's public key file")
  @GET
  @Path("/fleets/{fleetId}/key.pub")
  @PermitAll
  @Produces(MediaType.APPLICATION_JSON)
  public Response keyFile(@PathParam("fleetId") @PublicId String fleetId) {
    NodeFleet fleet =
        fleets.byRef(fleetId).orElseThrow(() -> ProblemTypes.notFound("fleet " + fleetId));
    return Response.ok(fleet.document.getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .header("Content-Disposition", "attachment; filename=\"" + fleetId + ".pub\"")
        .build();
  }

  /** Registers a fleet by its public key file ({@code tgsp keygen fleet} writes it). */
  @Operation(summary = "Register a fleet by its public key file from tgsp keygen fleet")
  @APIResponseSchema(
      value = io.tensafe.marketplace.fleet.FleetView.class,
      responseCode = "201",
      responseDescription = "The fleet is registered")
  @POST
  @Path("/admin/fleets")
  @RolesAllowed("admin")
  @Consumes(MediaType.APPLICATION_JSON)
  public Response register(@NotNull @Size(min = 2, max = 65536) byte[] publicKeyFile) {
    return Response.status(201).entity(fleets.register(publicKeyFile)).build();
  }
}
