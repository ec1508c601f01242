package io.tensafe.marketplace.e2e;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.marketplace.testing.RealKeycloak;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * End to end against the real Keycloak that {@code ./tensafe test} starts (realm file in
 * src/main/keycloak): tokens from the password grant of the demo users; a creator registers a key
 * and uploads a package, an admin sees the upload, the creator publishes it, a client finds it.
 */
@QuarkusIntegrationTest
@TestProfile(RealKeycloak.Profile.class)
class KeycloakEndToEndIT {
  static final String KEYCLOAK = RealKeycloak.URL;

  static String token(String user) {
    return RealKeycloak.token(user);
  }

  @Test
  void creatorUploads_adminSeesIt_clientFindsItOncePublished() throws Exception {
    Assumptions.assumeTrue(
        KEYCLOAK != null,
        "TENSAFE_KEYCLOAK_URL is not set: run through ./tensafe test, which starts Keycloak");
    SecureRandom random = new SecureRandom();
    String suffix = HexFormat.of().formatHex(random.generateSeed(4));
    String admin = token("admin");
    String creator = token("creator");
    String client = token("client");

    FleetKeyPair fleet = FleetKeyPair.generate("e2e-fleet-" + suffix, random);
    Actors.registerFleetWith(admin, fleet);
    CreatorKeyPair key = CreatorKeyPair.generate("e2e-" + suffix, random);
    Actors.registerKeyWith(creator, key);

    String adapterId = "e2e-adapter-" + suffix;
    given()
        .auth()
        .oauth2(creator)
        .contentType("application/octet-stream")
        .body(Actors.pack(adapterId, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B"))
        .post("/api/creator/packages")
        .then()
        .statusCode(201)
        .body("adapterId", equalTo(adapterId));

    getAs(admin, "/api/admin/adapter-versions?size=200")
        .then()
        .statusCode(200)
        .body("items.adapterId", hasItem(adapterId));

    given()
        .auth()
        .oauth2(creator)
        .post("/api/creator/adapters/" + adapterId + "/versions/1.0.0/publish")
        .then()
        .statusCode(200)
        .body("state", equalTo("published"));
    given()
        .auth()
        .oauth2(client)
        .queryParam("q", adapterId)
        .get("/api/catalog")
        .then()
        .statusCode(200)
        .body("items.adapterId", hasItem(adapterId));
    getAs(client, "/api/admin/adapter-versions").then().statusCode(403);

    // An inference node, with the tensafe-node client's own credentials (client-credentials
    // grant, as the node's ClientCredentials does): registers, fetches the creators' keys and its
    // fleet's package, and reports usage once.
    String node = RealKeycloak.nodeToken();
    String nodeName = "e2e-node-" + suffix;
    String registration =
        "{\"fleetId\":\"e2e-fleet-"
            + suffix
            + "\",\"name\":\""
            + nodeName
            + "\",\"baseModels\":[\"Qwen/Qwen2.5-0.5B\"],\"accelerator\":\"cpu\","
            + "\"maxConcurrency\":4}";
    Actors.registerNode(node, fleet, nodeName, registration)
        .then()
        .statusCode(200)
        .body("healthy", equalTo(true));
    // The second node's own credential holds the fleet key too, but not this node's name.
    Actors.registerNode(RealKeycloak.nodeToken("tensafe-node-2"), fleet, nodeName, registration)
        .then()
        .statusCode(409);
    getAs(node, "/api/node/creator-keys").then().statusCode(200);
    getAs(node, "/api/node/packages/" + adapterId + "/1.0.0?node=" + nodeName)
        .then()
        .statusCode(200);
    String report =
        """
        {"requestId":"%s","node":"%s","adapterId":"%s","adapterVersion":"1.0.0",
         "promptTokens":5,"completionTokens":8,"finishReason":"stop","dpReleases":40,
         "dpNoiseMultiplier":1.1,"heCalls":26,"heEncryptions":40,"hePlaintextProducts":40,
         "heDecryptions":40,"heMillis":3.5,"totalMillis":20.0,
         "startedAt":"2026-11-22T10:00:00Z","finishedAt":"2026-11-22T10:00:01Z"}
        """
            .formatted(java.util.UUID.randomUUID(), nodeName, adapterId);
    postJson(node, "/api/node/usage", report).then().statusCode(201);
    postJson(node, "/api/node/usage", report)
        .then()
        .statusCode(200)
        .body("status", equalTo("duplicate"));
    getAs(client, "/api/node/creator-keys").then().statusCode(403);
  }
}
