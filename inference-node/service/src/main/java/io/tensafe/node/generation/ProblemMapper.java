package io.tensafe.node.generation;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Every error as application/problem+json; no stack traces. */
public class ProblemMapper {
  @ServerExceptionMapper
  public Response node(NodeProblem p) {
    Response.ResponseBuilder r = body(p.type(), p.status(), p.title(), p.getMessage());
    if (p.retryAfterSeconds() > 0) {
      r.header("Retry-After", p.retryAfterSeconds());
    }
    return r.build();
  }

  @ServerExceptionMapper
  public Response web(WebApplicationException e) {
    int status = e.getResponse().getStatus();
    return body(
            NodeProblem.BASE + (status == 400 ? "validation" : "http"),
            status,
            e.getResponse().getStatusInfo().getReasonPhrase(),
            status == 400 ? "the request body is not valid JSON of the expected shape" : null)
        .build();
  }

  private static Response.ResponseBuilder body(
      String type, int status, String title, String detail) {
    Map<String, Object> problem = new LinkedHashMap<>();
    problem.put("type", type);
    problem.put("title", title);
    problem.put("status", status);
    if (detail != null) {
      problem.put("detail", detail);
    }
    return Response.status(status).type("application/problem+json").entity(problem);
  }
}
