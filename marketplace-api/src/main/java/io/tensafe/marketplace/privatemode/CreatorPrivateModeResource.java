package io.tensafe.marketplace.privatemode;

import io.tensafe.marketplace.adapter.OwnVersions;
import io.tensafe.marketplace.adapter.PrivateModeView;
import io.tensafe.marketplace.validation.PublicId;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code /api/creator/adapters/{adapterId}/versions/{version}/private-mode}: whether the creator
 * offers private mode for its version, and each client organisation's quota of private tokens per
 * period (issue 49). {@code PUT} {@link PrivateModeChange} → the setting now ({@link
 * PrivateModeView}); {@code GET} → the same. Another creator's version is 404.
 */
@Path("/api/creator/adapters/{adapterId}/versions/{version}/private-mode")
@RolesAllowed("creator")
@Produces(MediaType.APPLICATION_JSON)
public class CreatorPrivateModeResource {
  @Inject PrivateModeOffers offers;
  @Inject OwnVersions own;

  @Operation(
      summary =
          "Offer private mode for a version, or withdraw it, with each client organisation's"
              + " private-token quota per period")
  @PUT
  @Consumes(MediaType.APPLICATION_JSON)
  public PrivateModeView set(
      @PathParam("adapterId") @PublicId String adapterId,
      @PathParam("version") @Pattern(regexp = "[0-9]{1,9}\\.[0-9]{1,9}\\.[0-9]{1,9}")
          String version,
      @NotNull @Valid PrivateModeChange change) {
    return offers.set(adapterId, version, change);
  }

  @Operation(summary = "Whether a version offers private mode, and its private-token quota")
  @GET
  public PrivateModeView get(
      @PathParam("adapterId") @PublicId String adapterId,
      @PathParam("version") @Pattern(regexp = "[0-9]{1,9}\\.[0-9]{1,9}\\.[0-9]{1,9}")
          String version) {
    return offers.of(own.find(adapterId, version).id);
  }
}
