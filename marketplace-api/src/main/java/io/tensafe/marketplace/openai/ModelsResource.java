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

  /**
   * One model entry in OpenAI's format, with TenSafe's {@code tensafe} object beside for adapters:
   * the newest published version's signed DP policy and measured effect (ADR 0035).
   */
  public record Model(
      String id,
      String object,
      long created,
      String owned_by,
      @com.fasterxml.jackson.annotation.JsonInclude(
              com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
          Map<String, Object> tensafe) {
    public Model(String id, String object, long created, String owned_by) {
      this(id, object, created, owned_by, null);
    }
  }

  /**
   * A published adapter, its creator, when its first version was published, and its newest
   * published version's signed {@code dp_policy} and {@code measured_effect} (JSON text, the latter
   * null when not measured).
   */
  private record Listed(
      String adapterId,
      String creator,
      OffsetDateTime firstPublished,
      String dpPolicy,
      String measuredEffect,
      String privateMode) {}

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

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
            "SELECT a.adapter_ref, c.creator_ref, min(v.published_at),"
                + " (SELECT (w.manifest->'dp_policy')::text FROM adapter_version w WHERE"
                + " w.adapter_id = a.id AND w.state = 'published' ORDER BY w.published_at DESC"
                + " LIMIT 1),"
                + " (SELECT (w.manifest->'measured_effect')::text FROM adapter_version w WHERE"
                + " w.adapter_id = a.id AND w.state = 'published' ORDER BY w.published_at DESC"
                + " LIMIT 1),"
                + PRIVATE_MODE
                + " FROM adapter a JOIN"
                + " creator c ON c.id = a.creator_id JOIN adapter_version v ON v.adapter_id = a.id"
                + " WHERE v.state = 'published' AND a.suspended_at IS NULL AND c.suspended_at IS"
                + " NULL"
                + scope
                + " GROUP BY a.id, a.adapter_ref, c.creator_ref ORDER BY a.adapter_ref");
    if (!key.adapterIds().isEmpty()) {
      query.setParameter("ids", key.adapterIds());
    }
    if (only != null) {
      query.setParameter("only", only);
    }
    for (Listed r : Rows.list(query, Listed.class)) {
      models.add(
          new Model(
              r.adapterId(), "model", r.firstPublished().toEpochSecond(), r.creator(), terms(r)));
    }
    return models;
  }

  /**
   * The newest published version's private-mode offer (issue 49) as JSON text: {@code offered}, and
   * each client organisation's {@code tokens_per_period} per {@code period_days}.
   */
  private static final String PRIVATE_MODE =
      " (SELECT json_build_object('offered', coalesce(pm.offered, false), 'tokens_per_period',"
          + " pm.tokens_per_period, 'period_days', pm.period_days, 'extraction_tokens',"
          + " (SELECT min((t->'shape'->>1)::bigint) FROM"
          + " jsonb_array_elements(w.manifest->'lora'->'tensors') t"
          + " WHERE t->>'name' LIKE '%.lora_A.weight'))::text FROM adapter_version w"
          + " LEFT JOIN private_mode_offer pm ON pm.adapter_version_id = w.id WHERE"
          + " w.adapter_id = a.id AND w.state = 'published' ORDER BY w.published_at DESC LIMIT 1)";

  /**
   * The {@code tensafe} object of an adapter's entry: its signed DP figures, and apart from them
   * its private-mode offer ({@code private_mode}).
   */
  private static Map<String, Object> terms(Listed r) {
    Map<String, Object> terms = new java.util.LinkedHashMap<>();
    try {
      terms.put("dp_policy", JSON.readTree(r.dpPolicy()));
      if (r.measuredEffect() != null) {
        terms.put("measured_effect", JSON.readTree(r.measuredEffect()));
        terms.put(
            "measured_effect_source",
            "signed by the creator's tgsp pack on the weights; the marketplace cannot read the"
                + " weights and shows the figures as signed");
      }
      terms.put("private_mode", JSON.readTree(r.privateMode()));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a stored manifest is not JSON", e);
    }
    return terms;
  }
}
