package io.tensafe.marketplace.apikey;

import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemMappers;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.ext.Provider;
import java.util.Optional;

/**
 * Authenticates {@link ApiKeyAuthenticated} endpoints by API key, and rejects everything else with
 * a 401 problem. The verified key is available to the resource as the {@code apiKey} request
 * property. Keys never reach logs: only the prefix is ever used after this point.
 */
@Provider
@ApiKeyAuthenticated
@jakarta.annotation.Priority(Priorities.AUTHENTICATION)
public class ApiKeyFilter implements ContainerRequestFilter {
  public static final String PROPERTY = "apiKey";

  /** The request property holding {@code System.nanoTime()} when this filter saw the request. */
  public static final String ARRIVED_NANOS = "arrivedNanos";

  @Inject ApiKeyVerifier verifier;

  @Override
  public void filter(ContainerRequestContext request) {
    request.setProperty(ARRIVED_NANOS, System.nanoTime());
    String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
    Optional<ApiKeyPrincipal> key =
        header != null && header.startsWith("Bearer ")
            ? verifier.verify(header.substring(7).trim())
            : Optional.empty();
    if (key.isEmpty()) {
      request.abortWith(
          ProblemMappers.problem(
                  ProblemKind.UNAUTHORIZED,
                  "a valid, unrevoked API key is required as 'Authorization: Bearer tsk_...'")
              .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
              .build());
      return;
    }
    request.setProperty(PROPERTY, key.get());
  }
}
