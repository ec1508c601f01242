package io.tensafe.marketplace;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.specification.RequestSpecification;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every endpoint × {anonymous, admin, creator, another creator, client, another client, node}.
 * Roles without access get 401 (no token) or 403; the owner gets through; another tenant of the
 * right role gets 404 for what is not theirs, never 2xx.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class AuthorisationMatrixTest {
  enum Actor {
    ANONYMOUS(null),
    ADMIN("admin"),
    CREATOR("creator"),
    OTHER_CREATOR("creator"),
    CLIENT("client"),
    OTHER_CLIENT("client"),
    NODE("node");

    final String role;

    Actor(String role) {
      this.role = role;
    }
  }

  /** One endpoint: who owns the resource it names, and which roles may call it at all. */
  record Endpoint(
      String method, String path, Object body, String contentType, Set<String> roles, Actor owner) {
    /** A GET without a body. */
    static Endpoint get(String path, Set<String> roles, Actor owner) {
      return new Endpoint("GET", path, null, null, roles, owner);
    }

    /** A call with a JSON body. */
    static Endpoint json(String method, String path, String body, Set<String> roles, Actor owner) {
      return new Endpoint(method, path, body, "application/json", roles, owner);
    }
  }

  String suffix;
  String adapter;
  String keyId;
  String apiKeyPrefix;

  void createOneOfEverything() throws Exception {
    suffix = Actors.suffix();
    FleetKeyPair fleet = FleetKeyPair.generate("fleet-" + suffix, Actors.RANDOM);
    CreatorKeyPair key = CreatorKeyPair.generate("acme-" + suffix, Actors.RANDOM);
    keyId = key.publicKey().keyId();
    Actors.registerFleet(user(Actor.ADMIN), fleet);
    Actors.registerKey(user(Actor.CREATOR), key);
    adapter = "adapter-" + suffix;
    Actors.upload(
        user(Actor.CREATOR), Actors.pack(adapter, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B"));
    Actors.registerKey(
        user(Actor.OTHER_CREATOR), CreatorKeyPair.generate("other-" + suffix, Actors.RANDOM));
    String created =
        postJson(
                Actors.token(user(Actor.CLIENT), "client"),
                "/api/client/api-keys",
                "{\"name\":\"matrix\"}")
            .then()
            .statusCode(201)
            .extract()
            .path("key");
    apiKeyPrefix = created.substring(0, 16);
    postJson(
            Actors.token(user(Actor.CLIENT), "client"),
            "/api/organisations",
            "{\"slug\":\"team-" + suffix + "\",\"displayName\":\"Team\"}")
        .then()
        .statusCode(201);
  }

  String user(Actor a) {
    return a.name().toLowerCase().replace('_', '-') + "-" + suffix;
  }

  List<Endpoint> endpoints() {
    Set<String> creator = Set.of("creator");
    String version = "/api/creator/adapters/" + adapter + "/versions/1.0.0";
    String price =
        "{\"promptMicrosPer1kTokens\":9,\"completionMicrosPer1kTokens\":9,\"effectiveFrom\":\"2999-01-01T00:00:00Z\"}";
    return List.of(
        Endpoint.get("/api/fleets/keys", null, null),
        Endpoint.get("/api/fleets/fleet-" + suffix + "/key.pub", null, null),
        Endpoint.get("/api/creator/profile", creator, null),
        Endpoint.get("/api/creator/keys", creator, null),
        Endpoint.json("POST", "/api/creator/keys", "{}", creator, null),
        new Endpoint("DELETE", "/api/creator/keys/" + keyId, null, null, creator, Actor.CREATOR),
        new Endpoint(
            "POST",
            "/api/creator/packages",
            new byte[] {1, 2, 3},
            "application/octet-stream",
            creator,
            null),
        Endpoint.get("/api/creator/adapters", creator, null),
        Endpoint.get("/api/creator/sales", creator, null),
        new Endpoint("POST", version + "/unpublish", null, null, creator, Actor.CREATOR),
        Endpoint.json("POST", version + "/prices", price, creator, Actor.CREATOR),
        new Endpoint("POST", version + "/publish", null, null, creator, Actor.CREATOR),
        Endpoint.json("POST", "/api/node/register", "{}", Set.of("node"), null),
        Endpoint.json("POST", "/api/node/register/challenge", "{}", Set.of("node"), null),
        new Endpoint(
            "POST", "/api/admin/creators/no-such/suspend", null, null, Set.of("admin"), null),
        Endpoint.get("/api/catalog", Set.of("client", "creator", "admin"), null),
        Endpoint.get("/api/admin/adapter-versions", Set.of("admin"), null),
        Endpoint.get("/api/admin/nodes", Set.of("admin"), null),
        Endpoint.get("/api/admin/sales", Set.of("admin"), null),
        Endpoint.get("/api/admin/overview", Set.of("admin"), null),
        Endpoint.get("/api/admin/audit?q=suspend", Set.of("admin"), null),
        Endpoint.get("/api/admin/reports/revenue", Set.of("admin"), null),
        Endpoint.get("/api/admin/budgets", Set.of("admin"), null),
        Endpoint.json("POST", "/api/admin/budgets/top-ups", "{}", Set.of("admin"), null),
        Endpoint.get("/api/client/budgets", Set.of("client"), null),
        Endpoint.get("/api/admin/reports/invoice?format=csv", Set.of("admin"), null),
        Endpoint.get("/api/admin/reports/payout", Set.of("admin"), null),
        Endpoint.get("/api/client/reports/invoice?format=pdf", Set.of("client"), null),
        Endpoint.get("/api/creator/reports/payout", creator, null),
        Endpoint.get("/api/admin/organisations", Set.of("admin"), null),
        Endpoint.get("/api/admin/api-keys", Set.of("admin"), null),
        Endpoint.get("/api/admin/users", Set.of("admin"), null),
        new Endpoint(
            "POST", "/api/admin/users/no-such-user/suspend", null, null, Set.of("admin"), null),
        new Endpoint(
            "POST", "/api/admin/users/no-such-user/unsuspend", null, null, Set.of("admin"), null),
        Endpoint.json("POST", "/api/admin/fleets", "{}", Set.of("admin"), null),
        new Endpoint(
            "POST",
            "/api/admin/adapters/no-such-adapter/unsuspend",
            null,
            null,
            Set.of("admin"),
            null),
        Endpoint.get("/api/client/api-keys", Set.of("client"), null),
        Endpoint.get("/api/organisations", Set.of("client"), null),
        Endpoint.json(
            "POST",
            "/api/organisations",
            "{\"slug\":\"matrix-" + suffix + "\",\"displayName\":\"M\"}",
            Set.of("client"),
            null),
        Endpoint.get(
            "/api/organisations/team-" + suffix + "/members", Set.of("client"), Actor.CLIENT),
        Endpoint.json(
            "POST",
            "/api/organisations/team-" + suffix + "/members",
            "{\"username\":\"nobody\"}",
            Set.of("client"),
            Actor.CLIENT),
        Endpoint.get(
            "/api/client/api-keys?organisation=team-" + suffix, Set.of("client"), Actor.CLIENT),
        Endpoint.json("POST", "/api/client/api-keys", "{\"name\":\"m\"}", Set.of("client"), null),
        new Endpoint(
            "DELETE",
            "/api/client/api-keys/" + apiKeyPrefix,
            null,
            null,
            Set.of("client"),
            Actor.CLIENT),
        Endpoint.json("POST", "/api/node/heartbeat", "{\"name\":\"n\"}", Set.of("node"), null),
        Endpoint.get("/api/node/packages/" + adapter + "/1.0.0?node=n", Set.of("node"), null),
        Endpoint.get("/api/node/creator-keys", Set.of("node"), null),
        Endpoint.json("POST", "/api/node/usage", "{\"node\":\"n\"}", Set.of("node"), null));
  }

  @TestFactory
  Stream<DynamicTest> everyEndpointForEveryActor() throws Exception {
    createOneOfEverything();
    List<DynamicTest> tests = new ArrayList<>();
    // Owners last, so a DELETE by the owner does not hide another tenant's 404.
    List<Actor> order =
        List.of(
            Actor.ANONYMOUS,
            Actor.ADMIN,
            Actor.OTHER_CREATOR,
            Actor.OTHER_CLIENT,
            Actor.NODE,
            Actor.CLIENT,
            Actor.CREATOR);
    for (Endpoint e : endpoints()) {
      for (Actor a : order) {
        tests.add(
            DynamicTest.dynamicTest(e.method() + " " + e.path() + " as " + a, () -> check(e, a)));
      }
    }
    return tests.stream();
  }

  private java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> documentedOperations;

  /** The response codes the OpenAPI document lists for the operation serving {@code path}. */
  private java.util.Set<String> documented(String method, String path) {
    try {
      if (documentedOperations == null) {
        documentedOperations = io.tensafe.marketplace.apidoc.OpenApiDocumentTest.operations();
      }
    } catch (Exception x) {
      throw new IllegalStateException(x);
    }
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    java.util.Set<String> codes = new java.util.TreeSet<>();
    documentedOperations.forEach(
        (operation, op) -> {
          String[] parts = operation.split(" ", 2);
          String regex = parts[1].replaceAll("\\{[^}]+\\}", "[^/]+").replace(".", "\\.");
          if (parts[0].equals(method) && bare.matches(regex)) {
            op.path("responses").fieldNames().forEachRemaining(codes::add);
          }
        });
    return codes;
  }

  private void check(Endpoint e, Actor actor) {
    RequestSpecification request = given();
    if (actor.role != null) {
      request = request.auth().oauth2(Actors.token(user(actor), actor.role));
    }
    if (e.body() != null) {
      request =
          e.body() instanceof byte[] bytes
              ? request.contentType(e.contentType()).body(bytes)
              : request.contentType(e.contentType()).body((String) e.body());
    }
    int status = request.request(e.method(), e.path()).then().extract().statusCode();
    String label = e.method() + " " + e.path() + " as " + actor + " gave " + status;
    assertTrue(status < 500, label);
    assertTrue(
        documented(e.method(), e.path()).contains(String.valueOf(status)),
        label + ", which the OpenAPI document does not list: " + documented(e.method(), e.path()));
    if (e.roles() == null) {
      assertEquals(200, status, label);
    } else if (actor == Actor.ANONYMOUS) {
      assertEquals(401, status, label);
    } else if (!e.roles().contains(actor.role)) {
      assertEquals(403, status, label);
    } else if (e.owner() != null && e.owner() != actor && e.owner().role.equals(actor.role)) {
      assertEquals(404, status, label + " (another tenant's resource)");
    } else {
      assertTrue(status != 401 && status != 403, label);
    }
  }
}
