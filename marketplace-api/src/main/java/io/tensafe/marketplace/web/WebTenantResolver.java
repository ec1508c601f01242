package io.tensafe.marketplace.web;

import io.quarkus.oidc.TenantResolver;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Chooses the OIDC tenant of a request (ADR 0014). The pages ({@code /admin}, {@code /creator},
 * {@code /logout}) use the {@value #WEB} tenant: Keycloak's authorisation code flow and a session
 * cookie. A call to {@code /api} uses it too when it is the pages' own: no {@code Authorization}
 * header, the session cookie present, and for anything but GET or HEAD the {@code X-Requested-With}
 * header, which a cross-site form cannot send (so a forged form post never carries the session).
 * Everything else uses the default tenant, by name: bearer tokens only.
 */
@ApplicationScoped
public class WebTenantResolver implements TenantResolver {
  /** The tenant's name in {@code quarkus.oidc.web.*}. */
  public static final String WEB = "web";

  /** The bearer-token tenant ({@code quarkus.oidc.*}); Quarkus names it {@code Default}. */
  static final String DEFAULT = io.quarkus.oidc.runtime.OidcUtils.DEFAULT_TENANT_ID;

  /** Quarkus names a tenant's session cookie {@code q_session_<tenant>}. */
  static final String SESSION_COOKIE = "q_session_" + WEB;

  /** Sent by the pages' scripts on every call to {@code /api}. */
  public static final String REQUESTED_WITH = "X-Requested-With";

  @Override
  public String resolve(RoutingContext context) {
    String path = context.normalizedPath();
    if (isPage(path)) {
      return WEB;
    }
    if (path.startsWith("/api/") && isPagesOwnCall(context)) {
      return WEB;
    }
    // Named, never null: on null Quarkus would pick the tenant whose session cookie the request
    // carries, and a forged cross-site POST carrying the cookie would then be authenticated.
    return DEFAULT;
  }

  static boolean isPage(String path) {
    return under(path, "/admin") || under(path, "/creator") || path.equals("/logout");
  }

  private static boolean under(String path, String root) {
    return path.equals(root) || path.startsWith(root + "/");
  }

  private static boolean isPagesOwnCall(RoutingContext context) {
    var request = context.request();
    if (request.headers().contains(HttpHeaders.AUTHORIZATION)) {
      return false;
    }
    Cookie session = request.getCookie(SESSION_COOKIE);
    if (session == null) {
      // Quarkus splits a large session cookie into q_session_web_chunk_1, _2, ...
      session = request.getCookie(SESSION_COOKIE + "_chunk_1");
    }
    if (session == null) {
      return false;
    }
    HttpMethod method = request.method();
    boolean safe = method == HttpMethod.GET || method == HttpMethod.HEAD;
    return safe || request.headers().contains(REQUESTED_WITH);
  }
}
