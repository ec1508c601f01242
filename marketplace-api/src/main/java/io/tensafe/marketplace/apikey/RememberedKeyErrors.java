package io.tensafe.marketplace.apikey;

import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.Provider;

/**
 * Reads a remembered key ({@link RememberedKeys}) again before an error answer leaves: a request
 * whose key was taken from memory and that ends in an error the admission's database call did not
 * give (a malformed body, an unknown model, a refusal) is answered 401 instead when the key is no
 * longer usable, as it would have been had the key been read first. Successful answers need no such
 * check: each passed the admission's call, which checked the key.
 */
@Provider
@ApiKeyAuthenticated
@jakarta.annotation.Priority(Priorities.AUTHENTICATION)
public class RememberedKeyErrors implements ContainerResponseFilter {
  @Inject ApiKeyVerifier verifier;
  @Inject RememberedKeys remembered;

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    if (response.getStatus() < 400
        || response.getStatus() == 401
        || !Boolean.TRUE.equals(request.getProperty(ApiKeyFilter.REMEMBERED))) {
      return;
    }
    String presented = ApiKeyFilter.presented(request);
    if (presented != null && verifier.verify(presented).isPresent()) {
      return;
    }
    if (request.getProperty(ApiKeyFilter.PROPERTY) instanceof ApiKeyPrincipal key) {
      remembered.forget(key);
    }
    var unauthorized = ApiKeyFilter.unauthorized();
    response.setStatus(401);
    response.getHeaders().clear();
    response.getHeaders().putAll(unauthorized.getMetadata());
    response.setEntity(unauthorized.getEntity());
  }
}
