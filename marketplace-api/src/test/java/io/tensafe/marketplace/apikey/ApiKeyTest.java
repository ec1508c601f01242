package io.tensafe.marketplace.apikey;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import org.junit.jupiter.api.Test;

@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class ApiKeyTest {
  @Inject EntityManager em;

  static String token(String user, String role) {
    return OidcWiremockTestResource.generateJwtToken(user, Set.of(role), user, "Bearer");
  }

  static String createKey(String client, String name) {
    return postJson(token(client, "client"), "/api/client/api-keys", "{\"name\":\"" + name + "\"}")
        .then()
        .statusCode(201)
        .extract()
        .path("key");
  }

  static String user() {
    return "client-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
  }

  @Test
  void create_showsTheKeyOnceAndStoresOnlyItsHash() {
    String client = user();
    String key =
        postJson(token(client, "client"), "/api/client/api-keys", "{\"name\":\"production\"}")
            .then()
            .statusCode(201)
            .body("key", matchesPattern("tsk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}"))
            .body("details.name", equalTo("production"))
            .extract()
            .path("key");
    String prefix = key.substring(0, 16);
    String listing =
        getAs(token(client, "client"), "/api/client/api-keys")
            .then()
            .statusCode(200)
            .body("items.prefix", hasItem(prefix))
            .extract()
            .asString();
    byte[] stored =
        em.createQuery("select k.secretSha256 from ApiKey k where k.prefix = :p", byte[].class)
            .setParameter("p", prefix)
            .getSingleResult();
    assertArrayEquals(ApiKeyService.sha256(key), stored);
    assertFalse(listing.contains(key.substring(17)), "the secret part appears in a listing");
    assertFalse(
        listing.contains(HexFormat.of().formatHex(stored)), "the hash appears in a listing");
    assertFalse(listing.toLowerCase().contains("sha256"), "a hash field appears in a listing");
  }

  @Test
  void revoke_ownKeyOnly_andAnotherTenantSeesNotFound() {
    String client = user();
    String key = createKey(client, "ci");
    String prefix = key.substring(0, 16);
    given()
        .auth()
        .oauth2(token(user(), "client"))
        .delete("/api/client/api-keys/" + prefix)
        .then()
        .statusCode(404)
        .contentType("application/problem+json");
    given()
        .auth()
        .oauth2(token(client, "client"))
        .delete("/api/client/api-keys/" + prefix)
        .then()
        .statusCode(204);
    getAs(token(client, "client"), "/api/client/api-keys")
        .then()
        .statusCode(200)
        .body("items[0].revokedAt", notNullValue());
  }

  @Test
  void revokedKey_failsAtOnce_onTheOpenAiApi() {
    String client = user();
    String key = createKey(client, "live");
    getAs(key, "/v1/models")
        .then()
        .statusCode(200)
        .body("object", equalTo("list"))
        .body("data.id", hasItem("auto"));
    given()
        .auth()
        .oauth2(token(client, "client"))
        .delete("/api/client/api-keys/" + key.substring(0, 16))
        .then()
        .statusCode(204);
    assertRefused(key);
  }

  @Test
  void openAiApi_withoutAValidKey_isUnauthorized() {
    given().get("/v1/models").then().statusCode(401).contentType("application/problem+json");
    given()
        .header("Authorization", "Bearer tsk_000000000000_" + "A".repeat(43))
        .get("/v1/models")
        .then()
        .statusCode(401);
    getAs(token(user(), "client"), "/v1/models")
        .then()
        .statusCode(401); // an OIDC token is not an API key
  }

  @Test
  void create_invalidRequest_namesTheField() {
    postJson(token(user(), "client"), "/api/client/api-keys", "{\"name\":\"\"}")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("type", equalTo("https://tensafe.io/problems/validation"))
        .body("errors.field", hasItem("name"));
  }

  @Test
  void create_asCreator_isForbidden() {
    postJson(token(user(), "creator"), "/api/client/api-keys", "{\"name\":\"x\"}")
        .then()
        .statusCode(403)
        .contentType("application/problem+json");
  }

  @Test
  void aSuspendedUsersKeys_areRefused_untilTheUserIsRestored() {
    String client = user();
    String key = createKey(client, "suspended-owner");
    getAs(key, "/v1/models").then().statusCode(200);
    String admin = "admin-" + user();
    given()
        .auth()
        .oauth2(token(admin, "admin"))
        .post("/api/admin/users/" + client + "/suspend")
        .then()
        .statusCode(200);
    assertRefused(key);
    given()
        .auth()
        .oauth2(token(admin, "admin"))
        .post("/api/admin/users/" + client + "/unsuspend")
        .then()
        .statusCode(200);
    getAs(key, "/v1/models").then().statusCode(200);
  }

  /** The gateway answers {@code key} with a 401 problem. */
  private static void assertRefused(String key) {
    getAs(key, "/v1/models").then().statusCode(401).contentType("application/problem+json");
  }
}
