package io.tensafe.marketplace.testing;

import static io.restassured.RestAssured.given;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The real Keycloak that {@code ./tensafe test} starts (realm file in src/main/keycloak), for
 * end-to-end and browser tests: a test profile that points both OIDC tenants at it and leaves the
 * WireMock OIDC server out, and tokens of the realm's demo users (password = user name).
 */
public final class RealKeycloak {
  /** Keycloak's base URL, set by {@code ./tensafe test}; null when Keycloak was not started. */
  public static final String URL = System.getenv("TENSAFE_KEYCLOAK_URL");

  private RealKeycloak() {}

  /** The test profile: the API's bearer tenant and the pages' code-flow tenant use the realm. */
  public static class Profile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      String issuer = (URL == null ? "http://127.0.0.1:8180" : URL) + "/realms/tensafe";
      return Map.of(
          "%test.quarkus.oidc.auth-server-url", issuer,
          "%test.quarkus.oidc.web.auth-server-url", issuer);
    }

    @Override
    public boolean disableGlobalTestResources() {
      return true;
    }
  }

  /** An access token of a demo user from the password grant of the public tensafe-web client. */
  public static String token(String user) {
    return given()
        .baseUri(URL)
        .formParam("grant_type", "password")
        .formParam("client_id", "tensafe-web")
        .formParam("username", user)
        .formParam("password", user)
        .post("/realms/tensafe/protocol/openid-connect/token")
        .then()
        .statusCode(200)
        .extract()
        .path("access_token");
  }

  /** A token of the first inference node's confidential client (client-credentials grant). */
  public static String nodeToken() {
    return nodeToken("tensafe-node");
  }

  /**
   * A token of the node client {@code clientId} ({@code tensafe-node} or {@code tensafe-node-2}:
   * each node has its own credential, whose secret is the client id and {@code -dev-secret}).
   */
  public static String nodeToken(String clientId) {
    return given()
        .baseUri(URL)
        .formParam("grant_type", "client_credentials")
        .formParam("client_id", clientId)
        .formParam("client_secret", clientId + "-dev-secret")
        .post("/realms/tensafe/protocol/openid-connect/token")
        .then()
        .statusCode(200)
        .extract()
        .path("access_token");
  }
}
