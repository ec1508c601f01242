package io.tensafe.marketplace.problem;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The one exception-to-problem mapping of the service: every error leaves as {@code
 * application/problem+json} (RFC 9457). Unknown errors become 500 with a correlation id; their
 * stack trace is logged once with that id and never sent.
 */
public final class ProblemMappers {
  private static final Logger LOG = Logger.getLogger(ProblemMappers.class);
  public static final String MEDIA_TYPE = "application/problem+json";

  @ServerExceptionMapper
  public Response api(ApiProblem p) {
    Response r = response(p.kind(), p.status(), p.title(), p.getMessage(), p.param(), null);
    if (p.status() == 401) {
      return Response.fromResponse(r).header("WWW-Authenticate", "Bearer").build();
    }
    if (p.retryAfterSeconds() > 0) {
      return Response.fromResponse(r).header("Retry-After", p.retryAfterSeconds()).build();
    }
    return r;
  }

  @ServerExceptionMapper
  public Response validation(ConstraintViolationException e) {
    List<Map<String, String>> errors =
        e.getConstraintViolations().stream()
            .sorted(Comparator.comparing(v -> v.getPropertyPath().toString()))
            .map(ProblemMappers::fieldError)
            .toList();
    return response(
        ProblemKind.VALIDATION,
        ProblemKind.VALIDATION.status(),
        ProblemKind.VALIDATION.title(),
        errors.size() + " field(s) are invalid: " + describe(errors),
        errors.isEmpty() ? null : errors.get(0).get("field"),
        errors);
  }

  @ServerExceptionMapper
  public Response unauthorized(UnauthorizedException e) {
    return api(new ApiProblem(ProblemKind.UNAUTHORIZED, "a valid bearer token is required"));
  }

  @ServerExceptionMapper
  public Response authenticationFailed(AuthenticationFailedException e) {
    return unauthorized(null);
  }

  @ServerExceptionMapper
  public Response forbidden(ForbiddenException e) {
    return api(new ApiProblem(ProblemKind.FORBIDDEN, "your role does not allow this"));
  }

  @ServerExceptionMapper
  public Response json(com.fasterxml.jackson.core.JsonProcessingException e) {
    return api(JsonProblems.of(e));
  }

  @ServerExceptionMapper
  public Response http(WebApplicationException e) {
    int status = e.getResponse().getStatus();
    if (e.getCause() instanceof com.fasterxml.jackson.core.JsonProcessingException j) {
      // The framework's reader wraps what the parser found in a bare "HTTP 400 Bad Request".
      return json(j);
    }
    if (status >= 500) {
      return internal(e);
    }
    return api(
        new ApiProblem(
            ProblemKind.HTTP,
            status,
            e.getResponse().getStatusInfo().getReasonPhrase(),
            e.getMessage()));
  }

  @ServerExceptionMapper
  public Response internal(Throwable t) {
    if (DatabaseBusy.causedBy(t)) {
      // Every database connection stayed busy past the pool's acquisition timeout: a burst, not a
      // fault. Nothing was written (the transaction never started), so the client may retry.
      LOG.warnf("database connection pool exhausted: %s", t.getMessage());
      return api(
          new ApiProblem(
              ProblemKind.SERVICE_BUSY,
              "every database connection is busy; nothing was done, retry after a second",
              1));
    }
    if (DatabaseBusy.unreachable(t)) {
      // A restart or a fail-over of the database: the client may retry once it is back. A request
      // it interrupted is billed only for what its client was sent.
      LOG.warnf("database unreachable: %s", t.getMessage());
      return api(
          new ApiProblem(
              ProblemKind.SERVICE_BUSY,
              "the database cannot be reached at the moment; retry after a few seconds",
              2));
    }
    String id = UUID.randomUUID().toString();
    LOG.errorf(t, "unhandled error, correlation id %s", id);
    return api(
        new ApiProblem(
            ProblemKind.INTERNAL, "something went wrong on our side; quote correlation id " + id));
  }

  private static String describe(List<Map<String, String>> errors) {
    return String.join(
        "; ", errors.stream().map(e -> e.get("field") + " " + e.get("message")).toList());
  }

  private static Map<String, String> fieldError(ConstraintViolation<?> v) {
    String path = v.getPropertyPath().toString();
    String field = path.contains(".") ? path.substring(path.lastIndexOf('.') + 1) : path;
    return Map.of("field", field, "message", v.getMessage());
  }

  /** A problem response builder, for filters that abort a request themselves. */
  public static Response.ResponseBuilder problem(ProblemKind kind, String detail) {
    return Response.fromResponse(response(kind, kind.status(), kind.title(), detail, null, null));
  }

  static Response response(
      ProblemKind kind,
      int status,
      String title,
      String detail,
      String param,
      List<Map<String, String>> errors) {
    return Response.status(status)
        .type(MEDIA_TYPE)
        .entity(ProblemBody.of(kind.uri(), status, title, detail, param, errors))
        .build();
  }
}
