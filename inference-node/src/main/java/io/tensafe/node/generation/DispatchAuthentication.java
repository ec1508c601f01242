package io.tensafe.node.generation;

import io.tensafe.node.marketplace.DispatchToken;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * On a node connected to a marketplace, generation ({@code /v1/generate...}) and adapter ({@code
 * /v1/adapters...}) requests must carry the node's {@link DispatchToken}; others get 401
 * problem+json before their body is read. Health and metrics stay open.
 */
public class DispatchAuthentication {
  @Inject DispatchToken token;

  @ServerRequestFilter(preMatching = true)
  public Response check(ContainerRequestContext request) {
    String path = request.getUriInfo().getPath();
    if (!token.required()
        || !(path.startsWith("/v1/generate") || path.startsWith("/v1/adapters"))) {
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
