package io.tensafe.marketplace.adapter;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Creators register keys, admins register fleets, creators upload packages; every rejection is
 * typed.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class PackageUploadTest {
  static final SecureRandom RANDOM = Actors.RANDOM;
  static final Path STORAGE = Path.of("target/test-packages");

  @Inject EntityManager em;

  String suffix;
  String creatorUser;
  CreatorKeyPair creatorKey;
  FleetKeyPair fleet;

  static String token(String user, String role) {
    return Actors.token(user, role);
  }

  @BeforeEach
  void registerCreatorAndFleet() {
    suffix = Actors.suffix();
    creatorUser = "creator-" + suffix;
    creatorKey = CreatorKeyPair.generate("acme-" + suffix, RANDOM);
    fleet = FleetKeyPair.generate("fleet-" + suffix, RANDOM);
    Actors.registerKey(creatorUser, creatorKey);
    Actors.registerFleet("admin-" + suffix, fleet);
  }

  @Test
  void fleetKeys_anonymous_listsTheRegisteredFleet() {
    given()
        .get("/api/fleets/keys")
        .then()
        .statusCode(200)
        .body("items.fleetId", hasItem("fleet-" + suffix));
  }

  @Test
  void upload_validPackage_isAcceptedOnceThenRefusedAsNotNewer() throws Exception {
    byte[] pkg = pack("1.0.0", fleet, creatorKey, "Qwen/Qwen2.5-0.5B");
    given()
        .auth()
        .oauth2(token(creatorUser, "creator"))
        .contentType("application/octet-stream")
        .body(pkg)
        .post("/api/creator/packages")
        .then()
        .statusCode(201)
        .body("adapterId", equalTo("adapter-" + suffix))
        .body("state", equalTo("draft"))
        .body("promptMicrosPer1kTokens", equalTo(1500));
    String sha =
        HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(pkg));
    assertEquals(true, Files.isRegularFile(STORAGE.resolve(sha.substring(0, 2)).resolve(sha)));
    expectProblem(pkg, creatorUser, 409, "version-not-newer");
    assertEquals(1L, versions());
  }

  @Test
  void upload_tamperedPackage_isRefusedAndLeavesNothing() throws Exception {
    byte[] pkg = pack("1.0.0", fleet, creatorKey, "Qwen/Qwen2.5-0.5B");
    pkg[200] ^= 1; // inside the signed manifest
    expectProblem(pkg, creatorUser, 422, "package-signature-invalid");
    assertEquals(0L, versions());
  }

  @Test
  void upload_unsignedPackage_isRefused() throws Exception {
    byte[] pkg = pack("1.0.0", fleet, creatorKey, "Qwen/Qwen2.5-0.5B");
    java.nio.ByteBuffer prefix = java.nio.ByteBuffer.wrap(pkg);
    int signatureStart = 80 + prefix.getInt(8) + prefix.getInt(12);
    java.util.Arrays.fill(pkg, signatureStart, signatureStart + prefix.getInt(16), (byte) 0);
    expectProblem(pkg, creatorUser, 422, "package-signature-invalid");
    assertEquals(0L, versions());
  }

  @Test
  void upload_truncatedPackage_isRefusedAsTruncated() throws Exception {
    byte[] pkg = pack("1.0.0", fleet, creatorKey, "Qwen/Qwen2.5-0.5B");
    expectProblem(
        java.util.Arrays.copyOf(pkg, pkg.length - 10), creatorUser, 400, "package-truncated");
    assertEquals(0L, versions());
  }

  @Test
  void upload_packageForAnUnknownFleet_isRefused() throws Exception {
    byte[] pkg =
        pack("1.0.0", FleetKeyPair.generate("nobody", RANDOM), creatorKey, "Qwen/Qwen2.5-0.5B");
    expectProblem(pkg, creatorUser, 422, "package-wrong-fleet");
  }

  @Test
  void upload_signedByAKeyThisCreatorDidNotRegister_isRefused() throws Exception {
    CreatorKeyPair stranger = CreatorKeyPair.generate("acme-" + suffix, RANDOM);
    expectProblem(
        pack("1.0.0", fleet, stranger, "Qwen/Qwen2.5-0.5B"),
        creatorUser,
        422,
        "package-unknown-signer");
  }

  @Test
  void upload_revokedKey_isRefusedAtOnce() throws Exception {
    given()
        .auth()
        .oauth2(token(creatorUser, "creator"))
        .delete("/api/creator/keys/" + creatorKey.publicKey().keyId())
        .then()
        .statusCode(204);
    expectProblem(
        pack("1.0.0", fleet, creatorKey, "Qwen/Qwen2.5-0.5B"),
        creatorUser,
        422,
        "package-unknown-signer");
  }

  @Test
  void upload_unsupportedBaseModel_isRefused() throws Exception {
    expectProblem(
        pack("1.0.0", fleet, creatorKey, "Some/OtherModel-7B"),
        creatorUser,
        422,
        "package-manifest-rejected");
  }

  @Test
  void upload_overLimit_isRefusedAsTooLarge() {
    expectProblem(new byte[1_000_001], creatorUser, 413, "package-too-large");
  }

  @Test
  void upload_withoutCreatorRole_isForbiddenAndAnonymousUnauthorized() {
    given()
        .auth()
        .oauth2(token("client-" + suffix, "client"))
        .contentType("application/octet-stream")
        .body(new byte[10])
        .post("/api/creator/packages")
        .then()
        .statusCode(403)
        .contentType("application/problem+json");
    given()
        .contentType("application/octet-stream")
        .body(new byte[10])
        .post("/api/creator/packages")
        .then()
        .statusCode(401);
  }

  private void expectProblem(byte[] body, String user, int status, String type) {
    given()
        .auth()
        .oauth2(token(user, "creator"))
        .contentType("application/octet-stream")
        .body(body)
        .post("/api/creator/packages")
        .then()
        .statusCode(status)
        .contentType("application/problem+json")
        .body("type", equalTo("https://tensafe.io/problems/" + type))
        .body("status", equalTo(status));
    try (var incoming = Files.list(STORAGE.resolve(".incoming"))) {
      assertEquals(0, incoming.count(), "a rejected upload left a file in .incoming");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private long versions() {
    return em.createQuery(
            "select count(v) from AdapterVersion v, Adapter a where v.adapterId = a.id and a.adapterRef = :r",
            Long.class)
        .setParameter("r", "adapter-" + suffix)
        .getSingleResult();
  }

  private byte[] pack(
      String version, FleetKeyPair recipient, CreatorKeyPair signer, String baseModel)
      throws Exception {
    return Actors.pack("adapter-" + suffix, version, recipient, signer, baseModel);
  }
}
