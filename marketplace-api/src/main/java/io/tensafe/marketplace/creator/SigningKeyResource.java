package io.tensafe.marketplace.creator;

import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.problem.ProblemTypes;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;

/** {@code /api/creator/keys}: a creator's hybrid signing keys. */
@Path("/api/creator/keys")
@RolesAllowed("creator")
@Produces(MediaType.APPLICATION_JSON)
public class SigningKeyResource {
  @Inject CreatorService creators;

  /**
   * Registers a public key file written by {@code tgsp keygen creator} (its JSON text). The first
   * key fixes the creator id that this account's packages must carry.
   */
  @Operation(summary = "Register a creator public key file from tgsp keygen creator")
  @APIResponseSchema(
      value = io.tensafe.marketplace.creator.SigningKeyView.class,
      responseCode = "201",
      responseDescription = "The key is registered")
  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  public Response register(@NotNull @Size(min = 2, max = 65536) byte[] publicKeyFile) {
    return Response.status(201).entity(creators.registerKey(publicKeyFile)).build();
  }

  @Operation(summary = "List your signing keys")
  @GET
  public Page<SigningKeyView> list(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    List<SigningKeyView> all = creators.keys();
    return Page.of(all, page, size);
  }

  @Operation(summary = "Revoke a signing key; packages signed with it are refused from now on")
  @APIResponse(responseCode = "204", description = "The key is revoked")
  @DELETE
  @Path("/{keyId}")
  public Response revoke(@PathParam("keyId") @Pattern(regexp = "[0-9a-f]{32}") String keyId) {
    if (!creators.revokeKey(keyId)) {
      throw ProblemTypes.notFound("signing key " + keyId);
    }
    return Response.noContent().build();
  }
}
