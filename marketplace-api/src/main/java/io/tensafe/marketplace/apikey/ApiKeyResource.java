package io.tensafe.marketplace.apikey;

import io.tensafe.marketplace.paging.Page;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.validation.OrganisationSlug;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;

/** {@code /api/client/api-keys}: an organisation's API keys for the metered API. */
@Path("/api/client/api-keys")
@RolesAllowed("client")
@Produces(MediaType.APPLICATION_JSON)
public class ApiKeyResource {
  @Inject ApiKeyService keys;

  /** Creates a key; the response is the only time the key is shown. */
  @Operation(
      summary = "Create an API key for the metered API; the key is shown only in this answer")
  @APIResponseSchema(
      value = io.tensafe.marketplace.apikey.CreatedApiKey.class,
      responseCode = "201",
      responseDescription = "The key was created")
  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  public Response create(@NotNull @Valid ApiKeyRequest request) {
    return Response.status(201).entity(keys.create(request)).build();
  }

  /** Keys of {@code organisation} (a slug the caller belongs to; default their personal one). */
  @Operation(summary = "List your organisation's API keys by prefix")
  @GET
  public Page<ApiKeyView> list(
      @QueryParam("organisation") @OrganisationSlug String organisation,
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return Page.of(keys.list(organisation), page, size);
  }

  @Operation(summary = "Revoke an API key at once")
  @APIResponse(responseCode = "204", description = "The key is revoked")
  @DELETE
  @Path("/{prefix}")
  public Response revoke(@PathParam("prefix") @Pattern(regexp = "tsk_[0-9a-f]{12}") String prefix) {
    if (!keys.revoke(prefix)) {
      throw ProblemTypes.notFound("API key " + prefix);
    }
    return Response.noContent().build();
  }
}
