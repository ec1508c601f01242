package io.tensafe.marketplace.adapter;

import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.InputStream;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;

/** {@code /api/creator/packages}: upload a signed, encrypted {@code .tgsp}. */
@Path("/api/creator/packages")
@RolesAllowed("creator")
public class CreatorPackageResource {
  @Inject UploadService uploads;

  /**
   * Uploads the raw bytes of a package. It becomes a draft version of its adapter; 201 with the
   * version, or a problem naming the failed check (nothing is kept on failure).
   */
  @Operation(summary = "Upload a signed, encrypted TGSP package as a draft version")
  @APIResponseSchema(
      value = io.tensafe.marketplace.adapter.VersionView.class,
      responseCode = "201",
      responseDescription = "The package verified and is stored as a draft")
  @POST
  @Consumes(MediaType.APPLICATION_OCTET_STREAM)
  @Produces(MediaType.APPLICATION_JSON)
  public Response upload(InputStream body) {
    return Response.status(201).entity(uploads.upload(body)).build();
  }
}
