package io.tensafe.node.generation;

import io.tensafe.node.marketplace.DispatchToken;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * On a node connected to a marketplace, every request to a REST resource (generation {@code
 * /v1/generate...}, adapters {@code /v1/adapters...}, and any added later) must carry the node's
 * {@link DispatchToken}; others get 401 problem+json before their body is read. Deny by default:
 * only {@code /metrics} is open among resources, so no spelling of a path slips past the check.
 * Health ({@code /q/health}, not a resource) stays open too.
 */
public class DispatchAuthentication {
  @Inject DispatchToken token;

  @ServerRequestFilter(preMatching = true)
  public Response check(ContainerRequestContext request) {
    if (!token.required() || request.getUriInfo().getPath().equals("/metrics")) {
      return null;
    }
    if (token.accepts(request.getHeaderString(HttpHeaders.AUTHORIZATION))) {
      return null;
    }
    return new ProblemMapper()
        .node(
            new NodeProblem(
                "unauthorized",
                401,
                "Unauthorized",
                "this node serves only its marketplace: present its dispatch token as"
                    + " 'Authorization: Bearer ...'",
                0));
  }
}
