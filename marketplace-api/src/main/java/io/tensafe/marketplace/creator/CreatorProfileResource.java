package io.tensafe.marketplace.creator;

import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** {@code GET /api/creator/profile}: the creator id to pass to {@code tgsp keygen creator}. */
@Path("/api/creator/profile")
@RolesAllowed("creator")
@Produces(MediaType.APPLICATION_JSON)
public class CreatorProfileResource {
  @Inject CreatorService creators;

  @Operation(summary = "Show your creator id, which your signing keys and packages must carry")
  @GET
  public CreatorProfile profile() {
    return creators.profile();
  }
}
