package io.tensafe.marketplace.apidoc;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document describes every operation: a summary that is a phrase (not a word cut from
 * the method name), at least one success response whose JSON has a schema, the error responses as
 * problem+json, 401/403 wherever a role or key is needed, and the success codes the code answers
 * (201 for creations, 204 for revocations; what the code answers to real calls is checked against
 * this document by {@code AuthorisationMatrixTest}).
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
public class OpenApiDocumentTest {
  static final Set<String> METHODS = Set.of("get", "post", "put", "delete", "patch");

  /** The OpenAPI document, as JSON. */
  static JsonNode document() throws Exception {
    return new ObjectMapper()
        .readTree(
            given().queryParam("format", "json").get("/q/openapi").then().extract().asString());
  }

  /** Every operation of the document as (METHOD path, its JSON). */
  public static Map<String, JsonNode> operations() throws Exception {
    JsonNode doc = document();
    Map<String, JsonNode> ops = new java.util.LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> paths = doc.path("paths").fields();
        paths.hasNext(); ) {
      Map.Entry<String, JsonNode> p = paths.next();
      for (Iterator<Map.Entry<String, JsonNode>> m = p.getValue().fields(); m.hasNext(); ) {
        Map.Entry<String, JsonNode> op = m.next();
        if (METHODS.contains(op.getKey())) {
          ops.put(op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + p.getKey(), op.getValue());
        }
      }
    }
    return ops;
  }

  /** Issue 36: the completions endpoints' bodies have a schema naming what they accept. */
  @Test
  void theCompletionsEndpoints_documentTheirRequestBodies() throws Exception {
    JsonNode doc = document();
    for (String path : List.of("/v1/chat/completions", "/v1/completions")) {
      JsonNode schema =
          doc.path("paths")
              .path(path)
              .path("post")
              .path("requestBody")
              .path("content")
              .path("application/json")
              .path("schema");
      if (schema.has("$ref")) {
        String ref = schema.get("$ref").asText();
        schema = doc.at(ref.substring(1));
      }
      JsonNode properties = schema.path("properties");
      for (String field :
          List.of("model", "messages", "prompt", "max_tokens", "temperature", "stream", "tools")) {
        assertTrue(
            properties.has(field), path + ": the body's schema names " + field + ": " + schema);
      }
    }
  }

  /** Issue 36: the completions endpoints' answers and 429s declare OpenAI's rate-limit headers. */
  @Test
  void theCompletionsEndpoints_documentTheirRateLimitHeaders() throws Exception {
    Map<String, JsonNode> ops = operations();
    for (String op : List.of("POST /v1/chat/completions", "POST /v1/completions")) {
      for (String code : List.of("200", "429")) {
        JsonNode headers = ops.get(op).path("responses").path(code).path("headers");
        for (String h :
            List.of(
                "x-ratelimit-limit-requests",
                "x-ratelimit-remaining-requests",
                "x-ratelimit-reset-requests")) {
          assertTrue(headers.has(h), op + " " + code + " declares " + h + ": " + headers);
        }
        assertTrue(!headers.has("x-ratelimit-limit-tokens"), "no limit on tokens: " + headers);
      }
      assertTrue(
          !ops.get(op).has(io.tensafe.marketplace.apidoc.RateLimitHeaderDocs.MARKER),
          "the marker is not part of the document");
    }
    assertTrue(
        !ops.get("GET /v1/models").path("responses").path("200").has("headers"),
        "only the operations that send them");
  }

  @Test
  void everyOperation_isDescribed_withItsResponsesAndErrors() throws Exception {
    Map<String, JsonNode> ops = operations();
    assertTrue(ops.size() >= 50, "operations documented: " + ops.size());
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : ops.entrySet()) {
      String name = e.getKey();
      JsonNode op = e.getValue();
      String summary = op.path("summary").asText("");
      if (summary.split(" ").length < 4) {
        wrong.add(name + ": summary '" + summary + "' is not a phrase");
      }
      JsonNode responses = op.path("responses");
      boolean success = false;
      for (Iterator<Map.Entry<String, JsonNode>> r = responses.fields(); r.hasNext(); ) {
        Map.Entry<String, JsonNode> response = r.next();
        int code = Integer.parseInt(response.getKey());
        if (response.getValue().path("description").asText("").isBlank()) {
          wrong.add(name + " " + code + ": no description");
        }
        JsonNode content = response.getValue().path("content");
        if (code >= 200 && code < 300) {
          success = true;
          for (Iterator<Map.Entry<String, JsonNode>> media = content.fields(); media.hasNext(); ) {
            Map.Entry<String, JsonNode> m = media.next();
            JsonNode schema = m.getValue().path("schema");
            if (m.getKey().contains("json") && schema.isEmpty()) {
              wrong.add(name + " " + code + " " + m.getKey() + ": empty schema");
            }
          }
        }
        if (code >= 400 && code != 416 && !content.has("application/problem+json")) {
          wrong.add(name + " " + code + ": not documented as problem+json");
        }
      }
      if (!success) {
        wrong.add(name + ": no success response");
      }
      if (!responses.has("500")) {
        wrong.add(name + ": no 500");
      }
      boolean secured = op.has("security") || name.contains(" /v1/");
      if (secured && !responses.has("401")) {
        wrong.add(name + ": secured but no 401");
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  void theProblemSchema_listsEveryProblemType() throws Exception {
    JsonNode doc = document();
    List<String> listed = new ArrayList<>();
    doc.path("components")
        .path("schemas")
        .path("Problem")
        .path("properties")
        .path("type")
        .path("enum")
        .forEach(t -> listed.add(t.asText()));
    assertEquals(
        java.util.Arrays.stream(io.tensafe.marketplace.problem.ProblemKind.values())
            .map(io.tensafe.marketplace.problem.ProblemKind::uri)
            .toList(),
        listed);
  }

  @Test
  void creationsAre201_revocations204_andThePagesAreNotInTheApi() throws Exception {
    Map<String, JsonNode> ops = operations();
    for (String created :
        List.of(
            "POST /api/client/api-keys",
            "POST /api/creator/keys",
            "POST /api/creator/packages",
            "POST /api/admin/fleets",
            "POST /api/organisations")) {
      JsonNode responses = ops.get(created).path("responses");
      assertTrue(responses.has("201"), created);
      assertTrue(!responses.has("200"), created + " documents 200 but answers 201");
    }
    assertTrue(ops.get("DELETE /api/client/api-keys/{prefix}").path("responses").has("204"));
    assertTrue(
        ops.keySet().stream().noneMatch(k -> k.contains(" /admin") || k.contains(" /creator")));
  }
}
