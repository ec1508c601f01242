package io.tensafe.marketplace.creator;

import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /api/creator/profile}: the creator id to pass to {@code tgsp keygen creator}. */
@Path("/api/creator/profile")
@RolesAllowed("creator")
@Produces(MediaType.APPLICATION_JSON)
public class CreatorProfileResource {
  @Inject CreatorService creators;

  @GET
  public CreatorProfile profile() {
    return creators.profile();
  }
}
