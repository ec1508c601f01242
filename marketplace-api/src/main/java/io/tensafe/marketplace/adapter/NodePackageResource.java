package io.tensafe.marketplace.adapter;

import io.tensafe.marketplace.validation.PublicId;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * {@code GET /api/node/packages/{adapterId}/{version}}: package bytes for a registered node of the
 * package's fleet (adapters own their packages; the fleet registry only says which node asks).
 */
@Path("/api")
public class NodePackageResource {
  @Inject PackageDownload downloads;

  /** Package bytes for a node of the package's fleet; ETag and single byte ranges supported. */
  @Operation(summary = "Download a package of the node's fleet (ETag and byte ranges)")
  @APIResponse(
      responseCode = "200",
      description = "The whole package",
      content =
          @Content(
              mediaType = "application/octet-stream",
              schema = @Schema(implementation = io.tensafe.marketplace.apidoc.PackageBytes.class)))
  @APIResponse(
      responseCode = "206",
      description = "The requested byte range",
      content =
          @Content(
              mediaType = "application/octet-stream",
              schema = @Schema(implementation = io.tensafe.marketplace.apidoc.PackageBytes.class)))
  @APIResponse(responseCode = "304", description = "The node's copy is current (If-None-Match)")
  @APIResponse(responseCode = "416", description = "The range is not satisfiable")
  @GET
  @Path("/node/packages/{adapterId}/{version}")
  @RolesAllowed("node")
  @Produces({MediaType.APPLICATION_OCTET_STREAM, "application/problem+json"})
  public Response download(
      @QueryParam("node") @NotNull @PublicId String node,
      @PathParam("adapterId") @PublicId String adapterId,
      @PathParam("version") @Pattern(regexp = "[0-9]{1,9}\\.[0-9]{1,9}\\.[0-9]{1,9}")
          String version,
      @HeaderParam("Range") String range,
      @HeaderParam("If-None-Match") String ifNoneMatch) {
    return downloads.serve(node, adapterId, version, range, ifNoneMatch);
  }
}
