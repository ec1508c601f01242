package io.tensafe.marketplace.apikey;

import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemMappers;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
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

  /**
   * The request property that is {@code true} when the key was taken from {@link RememberedKeys}
   * without reading the database ({@link KeyConfirmedAtAdmission} endpoints only).
   */
  public static final String REMEMBERED = "apiKeyRemembered";

  @Inject ApiKeyVerifier verifier;
  @Context ResourceInfo resource;

  @Override
  public void filter(ContainerRequestContext request) {
    request.setProperty(ARRIVED_NANOS, System.nanoTime());
    String presented = presented(request);
    Optional<ApiKeyVerifier.Verified> key;
    if (presented == null) {
      key = Optional.empty();
    } else if (resource.getResourceMethod() != null
        && resource.getResourceMethod().isAnnotationPresent(KeyConfirmedAtAdmission.class)) {
      key = verifier.verifyRemembered(presented);
    } else {
      key = verifier.verify(presented).map(k -> new ApiKeyVerifier.Verified(k, false));
    }
    if (key.isEmpty()) {
      request.abortWith(unauthorized());
      return;
    }
    request.setProperty(PROPERTY, key.get().key());
    request.setProperty(REMEMBERED, key.get().remembered());
  }

  /** The bearer token the request presents, or null. */
  static String presented(ContainerRequestContext request) {
    String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
    return header != null && header.startsWith("Bearer ") ? header.substring(7).trim() : null;
  }

  /** The 401 problem every unusable key gets. */
  public static Response unauthorized() {
    return ProblemMappers.problem(
            ProblemKind.UNAUTHORIZED,
            "a valid, unrevoked API key is required as 'Authorization: Bearer tsk_...'")
        .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
        .build();
  }
}
