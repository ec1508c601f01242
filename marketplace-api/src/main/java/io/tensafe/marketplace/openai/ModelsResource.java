package io.tensafe.marketplace.openai;

import io.tensafe.marketplace.apikey.ApiKeyAuthenticated;
import io.tensafe.marketplace.apikey.ApiKeyFilter;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.sql.Rows;
import jakarta.annotation.security.PermitAll;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * {@code GET /v1/models}: the adapters this API key may use, plus {@code auto}, OpenAI-style;
 * beside them, under {@code tensafe.auto_price_cap}, the most {@code auto} routes to for the key's
 * organisation, per 1k prompt and completion tokens, and whether its owners or the platform set it.
 * {@code GET /v1/models/{id}}: one of them, or 404.
 */
@Path("/v1/models")
@PermitAll
@ApiKeyAuthenticated
@Produces(MediaType.APPLICATION_JSON)
public class ModelsResource {
  @Inject EntityManager em;
  @Inject io.tensafe.marketplace.autocap.AutoPriceCaps autoCaps;

  /** One model entry in OpenAI's format. */
  public record Model(String id, String object, long created, String owned_by) {}

  /** A published adapter, its creator and when its first version was published. */
  private record Listed(String adapterId, String creator, OffsetDateTime firstPublished) {}

  @Operation(summary = "List the models this API key may name: auto and the published adapters")
  @GET
  public Map<String, Object> list(@Context ContainerRequestContext request) {
    ApiKeyPrincipal key = (ApiKeyPrincipal) request.getProperty(ApiKeyFilter.PROPERTY);
    List<Model> models = models(key, null);
    io.tensafe.marketplace.autocap.AutoCapView auto = autoCaps.of(key.organisationId());
    Map<String, Object> cap = new java.util.LinkedHashMap<>();
    cap.put("currency", auto.cap().currency());
    cap.put("prompt_micros_per_1k_tokens", auto.cap().promptMicrosPer1kTokens());
    cap.put("completion_micros_per_1k_tokens", auto.cap().completionMicrosPer1kTokens());
    cap.put("source", auto.source());
    // Beside OpenAI's fields: the most `auto` routes to for this key's organisation.
    return Map.of("object", "list", "data", models, "tensafe", Map.of("auto_price_cap", cap));
  }

  @Operation(summary = "Retrieve one model this API key may name: auto or a published adapter")
  @GET
  @jakarta.ws.rs.Path("/{id}")
  public Model one(
      @jakarta.ws.rs.PathParam("id") String id, @Context ContainerRequestContext request) {
    ApiKeyPrincipal key = (ApiKeyPrincipal) request.getProperty(ApiKeyFilter.PROPERTY);
    return models(key, id).stream()
        .filter(m -> m.id().equals(id))
        .findFirst()
        .orElseThrow(
            () ->
                new io.tensafe.marketplace.problem.ApiProblem(
                        io.tensafe.marketplace.problem.ProblemKind.NOT_FOUND,
                        404,
                        "Model not found",
                        "model '" + id + "' does not exist or this API key may not use it")
                    .withParam("model"));
  }

  /**
   * {@code auto} and the published adapters {@code key} may use, by id; only {@code only}'s when it
   * is given (one model's lookup).
   */
  private List<Model> models(ApiKeyPrincipal key, String only) {
    List<Model> models = new ArrayList<>();
    models.add(new Model("auto", "model", 0, "tensafe"));
    String scope =
        (key.adapterIds().isEmpty() ? "" : " AND a.id IN (:ids)")
            + (only == null ? "" : " AND a.adapter_ref = :only");
    var query =
        em.createNativeQuery(
            "SELECT DISTINCT a.adapter_ref, c.creator_ref, min(v.published_at) FROM adapter a JOIN"
                + " creator c ON c.id = a.creator_id JOIN adapter_version v ON v.adapter_id = a.id"
                + " WHERE v.state = 'published' AND a.suspended_at IS NULL AND c.suspended_at IS"
                + " NULL"
                + scope
                + " GROUP BY a.adapter_ref, c.creator_ref ORDER BY a.adapter_ref");
    if (!key.adapterIds().isEmpty()) {
      query.setParameter("ids", key.adapterIds());
    }
    if (only != null) {
      query.setParameter("only", only);
    }
    for (Listed r : Rows.list(query, Listed.class)) {
      models.add(
          new Model(r.adapterId(), "model", r.firstPublished().toEpochSecond(), r.creator()));
    }
    return models;
  }
}
