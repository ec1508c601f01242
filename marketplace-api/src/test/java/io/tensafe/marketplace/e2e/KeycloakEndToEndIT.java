package io.tensafe.marketplace.e2e;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.json.CanonicalJson;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.AdapterPacker;
import io.tensafe.tgsp.packaging.PackOptions;
import io.tensafe.tgsp.peft.SyntheticAdapter;
import io.tensafe.tgsp.safetensors.DType;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * End to end against the real Keycloak that {@code ./tensafe test} starts (realm file in
 * src/main/keycloak): tokens from the password grant of the demo users; a creator registers a key
 * and uploads a package, an admin sees the upload, the creator publishes it, a client finds it.
 */
@QuarkusIntegrationTest
@TestProfile(KeycloakEndToEndIT.RealKeycloak.class)
class KeycloakEndToEndIT {
  static final String KEYCLOAK = System.getenv("TENSAFE_KEYCLOAK_URL");

  /** Points the packaged app at the real Keycloak and leaves the WireMock OIDC server out. */
  public static class RealKeycloak implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      String base = KEYCLOAK == null ? "http://127.0.0.1:8180" : KEYCLOAK;
      return Map.of("%test.quarkus.oidc.auth-server-url", base + "/realms/tensafe");
    }

    @Override
    public boolean disableGlobalTestResources() {
      return true;
    }
  }

  static String token(String user) {
    return given()
        .baseUri(KEYCLOAK)
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
    given()
        .auth()
        .oauth2(admin)
        .contentType("application/json")
        .body(CanonicalJson.encode(KeyFiles.fleetPublicJson(fleet.publicKey())))
        .post("/api/admin/fleets")
        .then()
        .statusCode(201);
    CreatorKeyPair key = CreatorKeyPair.generate("e2e-" + suffix, random);
    given()
        .auth()
        .oauth2(creator)
        .contentType("application/json")
        .body(CanonicalJson.encode(KeyFiles.creatorPublicJson(key.publicKey())))
        .post("/api/creator/keys")
        .then()
        .statusCode(201);

    String adapterId = "e2e-adapter-" + suffix;
    given()
        .auth()
        .oauth2(creator)
        .contentType("application/octet-stream")
        .body(pack(adapterId, key, fleet, random))
        .post("/api/creator/packages")
        .then()
        .statusCode(201)
        .body("adapterId", equalTo(adapterId));

    given()
        .auth()
        .oauth2(admin)
        .get("/api/admin/adapter-versions?size=200")
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
    given().auth().oauth2(client).get("/api/admin/adapter-versions").then().statusCode(403);
  }

  private static byte[] pack(
      String adapterId, CreatorKeyPair key, FleetKeyPair fleet, SecureRandom random)
      throws Exception {
    Path dir = Files.createTempDirectory("e2e");
    Path peft =
        new SyntheticAdapter(1, 32, 4, 8, List.of("q_proj"), DType.F32, "Qwen/Qwen2.5-0.5B")
            .write(dir.resolve("peft"), 1);
    PackOptions options =
        new PackOptions(
            UUID.randomUUID().toString(),
            new Manifest.Adapter(adapterId, "1.0.0"),
            Optional.empty(),
            Optional.empty(),
            new Manifest.Routing(List.of("mortgage", "bank"), "finance"),
            new Manifest.Price("USD", 1200, 1800),
            "proprietary",
            new Manifest.DpPolicy(
                BigDecimal.ONE,
                new BigDecimal("1.1"),
                new BigDecimal("0.00001"),
                BigDecimal.TEN,
                30),
            Optional.empty(),
            OptionalInt.empty(),
            4096,
            Instant.now());
    Path file = dir.resolve("a.tgsp");
    AdapterPacker.pack(peft, options, key, List.of(fleet.publicKey()), random, file, d -> {});
    return Files.readAllBytes(file);
  }
}
