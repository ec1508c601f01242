package io.tensafe.marketplace.apikey;

import io.tensafe.marketplace.paging.Page;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code GET /api/admin/api-keys}: every tenant's API keys (never secrets or hashes), for admins;
 * suspend one with {@code POST /api/admin/api-keys/{prefix}/suspend}.
 */
@Path("/api/admin/api-keys")
@RolesAllowed("admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminApiKeyResource {
  @Inject ApiKeyService keys;

  @Operation(summary = "List every API key by prefix, owner and state (admins)")
  @GET
  public Page<ApiKeyView> all(
      @QueryParam("page") @DefaultValue("0") @Min(0) int page,
      @QueryParam("size") @DefaultValue("50") @Min(1) @Max(200) int size) {
    return Page.of(keys.all(), page, size);
  }
}
