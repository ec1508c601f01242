package io.tensafe.marketplace.apidoc;

import io.tensafe.marketplace.problem.ProblemKind;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * Completes the generated OpenAPI document with what the code does on failure, so that a client
 * generated from it handles every answer: a shared {@code Problem} schema (problem+json with
 * OpenAI's {@code error} object, ADR 0016), and on every operation the error responses the
 * framework and our mappers can give it: 400 when it takes a body or parameters, 401 and 403 when
 * it needs a role or key, 404 when its path names something, 415 when it takes a body, 503 when the
 * database is saturated, and 500; and on the completions endpoints OpenAI's rate-limit headers
 * ({@link RateLimitHeaderDocs}). Responses an operation declares itself keep their text. The HTML
 * pages ({@code /admin}, {@code /creator}) are not part of the API and are left out.
 */
public class ProblemResponses implements OASFilter {
  static final String PROBLEM = "#/components/schemas/Problem";
  static final String PROBLEM_JSON = "application/problem+json";

  @Override
  public void filterOpenAPI(OpenAPI openApi) {
    if (openApi.getComponents() == null) {
      openApi.setComponents(OASFactory.createComponents());
    }
    Components components = openApi.getComponents();
    components.addSchema("Problem", problemSchema());
    if (openApi.getPaths() == null) {
      return;
    }
    Map<String, PathItem> items = new LinkedHashMap<>(openApi.getPaths().getPathItems());
    for (Map.Entry<String, PathItem> e : items.entrySet()) {
      String path = e.getKey();
      if (!path.startsWith("/api/") && !path.startsWith("/v1/")) {
        openApi.getPaths().removePathItem(path);
        continue;
      }
      for (Map.Entry<PathItem.HttpMethod, Operation> op : e.getValue().getOperations().entrySet()) {
        complete(path, op.getKey(), op.getValue());
      }
    }
  }

  private static void complete(String path, PathItem.HttpMethod method, Operation op) {
    APIResponses responses = op.getResponses();
    if (responses == null) {
      responses = OASFactory.createAPIResponses();
      op.setResponses(responses);
    }
    boolean body = op.getRequestBody() != null;
    boolean params = op.getParameters() != null && !op.getParameters().isEmpty();
    boolean secured =
        path.startsWith("/v1/") || op.getSecurity() != null && !op.getSecurity().isEmpty();
    if (body || params) {
      problem(
          responses,
          "400",
          "The request is invalid: the problem's detail and error.param say which field and why");
    }
    if (secured) {
      problem(
          responses,
          "401",
          "No valid credentials: a bearer token (or, on /v1, an API key) is required");
      if (!path.startsWith("/v1/")) {
        problem(responses, "403", "Your role does not allow this");
      }
    }
    if (path.contains("{") || params || body && !path.startsWith("/v1/")) {
      problem(responses, "404", "What the request names does not exist or is not yours to see");
    }
    if (method != PathItem.HttpMethod.GET && !path.startsWith("/v1/")) {
      problem(
          responses, "409", "The request conflicts with the current state (the detail says how)");
    }
    if (path.startsWith("/v1/") && body) {
      problem(responses, "411", "A body without Content-Length: its size cannot be bounded first");
      problem(responses, "413", "The body or the prompt is too large");
      problem(
          responses,
          "422",
          "No adapter matched, the price is above the key's cap, or the adapter cannot run");
      problem(
          responses,
          "429",
          "Too many requests for this key, or its privacy budget is spent or reserved");
      problem(
          responses, "502", "The node failed mid-generation; nothing it did not send is billed");
      problem(responses, "504", "The node did not start answering in time; nothing was billed");
    }
    if (body) {
      problem(responses, "415", "The body's Content-Type is not one this operation reads");
    }
    problem(
        responses,
        "503",
        "Service busy: every database connection is in use; retry after Retry-After seconds");
    problem(
        responses, "500", "An unexpected error; the detail carries a correlation id for the logs");
    // Errors an operation declares itself are problems too (416 has no body: only Content-Range).
    for (Map.Entry<String, APIResponse> r : Map.copyOf(responses.getAPIResponses()).entrySet()) {
      if (r.getKey().compareTo("400") >= 0 && !r.getKey().equals("416")) {
        problem(responses, r.getKey(), r.getValue().getDescription());
      }
    }
    RateLimitHeaderDocs.complete(op);
  }

  /** Adds {@code code} as a problem response, or gives an existing one the problem schema. */
  static void problem(APIResponses responses, String code, String description) {
    APIResponse existing = responses.getAPIResponse(code);
    APIResponse r = existing != null ? existing : OASFactory.createAPIResponse();
    if (r.getDescription() == null
        || r.getDescription().isBlank()
        || r.getDescription().equals("Not Authorized")
        || r.getDescription().equals("Not Allowed")) {
      r.setDescription(description);
    }
    r.setContent(
        OASFactory.createContent()
            .addMediaType(
                PROBLEM_JSON,
                OASFactory.createMediaType().schema(OASFactory.createSchema().ref(PROBLEM))));
    responses.addAPIResponse(code, r);
  }

  private static Schema problemSchema() {
    Schema error =
        OASFactory.createSchema()
            .addType(Schema.SchemaType.OBJECT)
            .description("OpenAI's error object, which the OpenAI SDKs read")
            .addProperty("message", OASFactory.createSchema().addType(Schema.SchemaType.STRING))
            .addProperty(
                "type",
                OASFactory.createSchema()
                    .addType(Schema.SchemaType.STRING)
                    .description(
                        "invalid_request_error, authentication_error, permission_error,"
                            + " rate_limit_error, insufficient_quota or server_error"))
            .addProperty(
                "code",
                OASFactory.createSchema()
                    .addType(Schema.SchemaType.STRING)
                    .description("the last segment of the problem type, e.g. validation"))
            .addProperty(
                "param",
                OASFactory.createSchema()
                    .addType(Schema.SchemaType.STRING)
                    .addType(Schema.SchemaType.NULL)
                    .description("the request field at fault, e.g. messages[0].content"));
    return OASFactory.createSchema()
        .addType(Schema.SchemaType.OBJECT)
        .description("RFC 9457 problem details, with OpenAI's error object (ADR 0016)")
        .addProperty(
            "type",
            OASFactory.createSchema()
                .addType(Schema.SchemaType.STRING)
                .description("a stable URI naming the kind of problem")
                .enumeration(
                    java.util.Arrays.stream(ProblemKind.values())
                        .<Object>map(ProblemKind::uri)
                        .toList()))
        .addProperty("title", OASFactory.createSchema().addType(Schema.SchemaType.STRING))
        .addProperty("status", OASFactory.createSchema().addType(Schema.SchemaType.INTEGER))
        .addProperty(
            "detail",
            OASFactory.createSchema()
                .addType(Schema.SchemaType.STRING)
                .description("what went wrong in this occurrence"))
        .addProperty(
            "errors",
            OASFactory.createSchema()
                .addType(Schema.SchemaType.ARRAY)
                .description("per-field errors of a validation problem")
                .items(
                    OASFactory.createSchema()
                        .addType(Schema.SchemaType.OBJECT)
                        .addProperty(
                            "field", OASFactory.createSchema().addType(Schema.SchemaType.STRING))
                        .addProperty(
                            "message",
                            OASFactory.createSchema().addType(Schema.SchemaType.STRING))))
        .addProperty("error", error)
        .addRequired("type")
        .addRequired("title")
        .addRequired("status")
        .addRequired("error");
  }
}
