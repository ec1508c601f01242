package io.tensafe.marketplace.openai;

import io.tensafe.marketplace.apikey.ApiKeyAuthenticated;
import io.tensafe.marketplace.apikey.ApiKeyFilter;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.gateway.ModelResolver;
import io.tensafe.tgsp.routing.GateCandidate;
import jakarta.annotation.security.PermitAll;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code GET /v1/routing/candidates}: what {@code model: "auto"} chooses among for this API key in
 * private mode (the adapters it may use, newest published versions within its price cap and, in
 * both modes' prices, its organisation's auto price cap, with their keywords and prices) and the
 * default adapter when it is within that cap ({@link ModelResolver#forPrivateClients}). A
 * private-mode client, which alone sees the prompt (ADR 0017), runs tgsp-format's {@code StepGate}
 * over them and reaches the marketplace's choice; ties left after rarity and price rotate on each
 * side's own counter.
 */
@Path("/v1/routing")
@PermitAll
@ApiKeyAuthenticated
@Produces(MediaType.APPLICATION_JSON)
public class RoutingResource {
  @Inject ModelResolver resolver;

  /**
   * The candidates and the default.
   *
   * @param defaultAdapter the adapter used when no keyword matches, or null
   */
  public record Candidates(String object, String defaultAdapter, List<GateCandidate> candidates) {}

  @Operation(summary = "List what model auto chooses among for this API key, with keywords")
  @GET
  @Path("/candidates")
  public Candidates candidates(@Context ContainerRequestContext request) {
    ApiKeyPrincipal key = (ApiKeyPrincipal) request.getProperty(ApiKeyFilter.PROPERTY);
    ModelResolver.PrivateChoices choices = resolver.forPrivateClients(key);
    return new Candidates(
        "tensafe.routing.candidates", choices.defaultAdapter().orElse(null), choices.candidates());
  }
}
