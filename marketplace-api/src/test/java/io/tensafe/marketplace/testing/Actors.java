package io.tensafe.marketplace.testing;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;

import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetChallenge;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.crypto.RecipientEntry;
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
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;

/**
 * Test actors against the WireMock OIDC server: tokens whose subject is the user name (so each name
 * is its own tenant), and the calls that set up a fleet, a creator key and packages.
 */
public final class Actors {
  public static final SecureRandom RANDOM = new SecureRandom();

  private Actors() {}

  /** A fresh random suffix, so tests never share data. */
  public static String suffix() {
    return HexFormat.of().formatHex(RANDOM.generateSeed(4));
  }

  public static String token(String user, String role) {
    return OidcWiremockTestResource.generateJwtToken(user, Set.of(role), user, "Bearer");
  }

  /**
   * A node credential's token whose identity provider names the organisation that operates it
   * (claim {@code tensafe_organisation}, an organisation's slug), as a Keycloak client with a
   * hardcoded-claim mapper sends it.
   */
  public static String nodeToken(String credential, String organisationSlug) {
    return OidcWiremockTestResource.generateJwtToken(
        credential,
        Set.of("node"),
        credential,
        "Bearer",
        Set.of(
            System.getProperty("quarkus.test.oidc.token.audience", "https://server.example.com")),
        java.util.Map.of("tensafe_organisation", organisationSlug));
  }

  /** A client organisation row (no user), committed at once; returns its id. */
  public static UUID clientOrganisation(jakarta.persistence.EntityManager em, String slug) {
    UUID id = UUID.randomUUID();
    io.quarkus.narayana.jta.QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "INSERT INTO organisation (id, slug, display_name) VALUES (:id, :s, 'Client')")
                    .setParameter("id", id)
                    .setParameter("s", slug)
                    .executeUpdate());
    return id;
  }

  public static void registerFleet(String admin, FleetKeyPair fleet) {
    registerFleetWith(token(admin, "admin"), fleet);
  }

  /**
   * A registration challenge for {@code name} in {@code fleet}, answered with the fleet's private
   * key, as the node does: the {@code fleetProof} JSON object.
   */
  public static String fleetProof(String nodeToken, FleetKeyPair fleet, String name)
      throws Exception {
    io.restassured.path.json.JsonPath c =
        postJson(
                nodeToken,
                "/api/node/register/challenge",
                "{\"fleetId\":\"" + fleet.publicKey().fleetId() + "\",\"name\":\"" + name + "\"}")
            .then()
            .statusCode(201)
            .extract()
            .jsonPath();
    java.util.Base64.Decoder b64 = java.util.Base64.getUrlDecoder();
    RecipientEntry entry =
        new RecipientEntry(
            c.getString("fleetKeyId"),
            b64.decode(c.getString("x25519Ephemeral")),
            b64.decode(c.getString("mlKemCiphertext")),
            b64.decode(c.getString("wrappedNonce")));
    byte[] nonce = FleetChallenge.answer(fleet, c.getString("challengeId"), name, entry);
    return "{\"challengeId\":\""
        + c.getString("challengeId")
        + "\",\"nonce\":\""
        + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(nonce)
        + "\"}";
  }

  /**
   * {@code POST /api/node/register} with {@code body} (a registration JSON object for {@code name}
   * in {@code fleet}, without its proof) and a fresh fleet proof made with {@code fleet}.
   */
  public static io.restassured.response.Response registerNode(
      String nodeToken, FleetKeyPair fleet, String name, String body) throws Exception {
    String proved =
        body.substring(0, body.lastIndexOf('}'))
            + ",\"fleetProof\":"
            + fleetProof(nodeToken, fleet, name)
            + "}";
    return postJson(nodeToken, "/api/node/register", proved);
  }

  /** Registers a fleet's public key with an admin's bearer token (any issuer); asserts 201. */
  public static void registerFleetWith(String adminToken, FleetKeyPair fleet) {
    given()
        .auth()
        .oauth2(adminToken)
        .contentType("application/json")
        .body(CanonicalJson.encode(KeyFiles.fleetPublicJson(fleet.publicKey())))
        .post("/api/admin/fleets")
        .then()
        .statusCode(201);
  }

  public static void registerKey(String creator, CreatorKeyPair key) {
    registerKeyWith(token(creator, "creator"), key);
  }

  /** Registers a creator's signing key with the creator's bearer token; asserts 201. */
  public static void registerKeyWith(String creatorToken, CreatorKeyPair key) {
    given()
        .auth()
        .oauth2(creatorToken)
        .contentType("application/json")
        .body(CanonicalJson.encode(KeyFiles.creatorPublicJson(key.publicKey())))
        .post("/api/creator/keys")
        .then()
        .statusCode(201);
  }

  /** Uploads bytes as {@code creator}; returns nothing, asserts 201. */
  public static void upload(String creator, byte[] pkg) {
    uploadWith(token(creator, "creator"), pkg);
  }

  /** Uploads bytes with the creator's bearer token; asserts 201. */
  public static void uploadWith(String creatorToken, byte[] pkg) {
    given()
        .auth()
        .oauth2(creatorToken)
        .contentType("application/octet-stream")
        .body(pkg)
        .post("/api/creator/packages")
        .then()
        .statusCode(201);
  }

  /** A small signed package of a synthetic adapter, encrypted to {@code recipient}. */
  public static byte[] pack(
      String adapterId,
      String version,
      FleetKeyPair recipient,
      CreatorKeyPair signer,
      String baseModel)
      throws Exception {
    return pack(adapterId, version, recipient, signer, baseModel, List.of("bank"), "1.1");
  }

  /** As above, with the given step-gate keywords and DP noise multiplier. */
  public static byte[] pack(
      String adapterId,
      String version,
      FleetKeyPair recipient,
      CreatorKeyPair signer,
      String baseModel,
      List<String> keywords,
      String noiseMultiplier)
      throws Exception {
    return pack(
        adapterId, version, recipient, signer, baseModel, keywords, noiseMultiplier, 1500, 2000);
  }

  /** As above, priced at these micro-units (USD) per 1k prompt and completion tokens. */
  public static byte[] pack(
      String adapterId,
      String version,
      FleetKeyPair recipient,
      CreatorKeyPair signer,
      String baseModel,
      List<String> keywords,
      String noiseMultiplier,
      long promptPrice,
      long completionPrice)
      throws Exception {
    Path dir = Files.createTempDirectory("pkg");
    Path peft =
        new SyntheticAdapter(1, 32, 4, 8, List.of("q_proj"), DType.F32, baseModel)
            .write(dir.resolve("peft"), 1);
    return pack(
        peft,
        adapterId,
        version,
        recipient,
        signer,
        keywords,
        noiseMultiplier,
        promptPrice,
        completionPrice);
  }

  /** A signed package of the PEFT folder {@code peft}, as above. */
  public static byte[] pack(
      Path peft,
      String adapterId,
      String version,
      FleetKeyPair recipient,
      CreatorKeyPair signer,
      List<String> keywords,
      String noiseMultiplier,
      long promptPrice,
      long completionPrice)
      throws Exception {
    Path dir = Files.createTempDirectory("pkg");
    PackOptions options =
        new PackOptions(
            UUID.randomUUID().toString(),
            new Manifest.Adapter(adapterId, version),
            Optional.empty(),
            Optional.empty(),
            new Manifest.Routing(keywords, "finance"),
            new Manifest.Price("USD", promptPrice, completionPrice),
            "proprietary",
            new Manifest.DpPolicy(
                BigDecimal.ONE,
                new BigDecimal(noiseMultiplier),
                new BigDecimal("0.00001"),
                BigDecimal.TEN,
                30),
            Optional.empty(),
            OptionalInt.empty(),
            4096,
            Instant.now());
    Path file = dir.resolve("a.tgsp");
    AdapterPacker.pack(
        peft, options, signer, List.of(recipient.publicKey()), RANDOM, file, d -> {});
    return Files.readAllBytes(file);
  }

  /** A fleet registered by an admin and a creator's registered signing key. */
  public record Seller(FleetKeyPair fleet, CreatorKeyPair key) {}

  /**
   * Fleet {@code fleet-SUFFIX}, registered by {@code admin-SUFFIX}, and signing key {@code
   * acme-SUFFIX}, registered for {@code creatorUser}: what most tests need before an upload.
   */
  public static Seller seller(String suffix, String creatorUser) throws Exception {
    FleetKeyPair fleet = FleetKeyPair.generate("fleet-" + suffix, RANDOM);
    CreatorKeyPair key = CreatorKeyPair.generate("acme-" + suffix, RANDOM);
    registerFleet("admin-" + suffix, fleet);
    registerKey(creatorUser, key);
    return new Seller(fleet, key);
  }

  /** The slug of the personal organisation of the holder of {@code clientToken}. */
  public static String personalOrganisation(String clientToken) {
    return given()
        .auth()
        .oauth2(clientToken)
        .get("/api/organisations")
        .then()
        .statusCode(200)
        .extract()
        .path("items[0].slug");
  }

  /**
   * Sets organisation {@code slug}'s auto price cap to {@code micros} per 1k prompt and completion
   * tokens in USD, as the holder of {@code clientToken}; the answer, unchecked.
   */
  public static io.restassured.response.Response setAutoCap(
      String clientToken, String slug, long micros) {
    return given()
        .auth()
        .oauth2(clientToken)
        .contentType("application/json")
        .body(
            "{\"currency\":\"USD\",\"promptMicrosPer1kTokens\":"
                + micros
                + ",\"completionMicrosPer1kTokens\":"
                + micros
                + "}")
        .put("/api/organisations/" + slug + "/auto-cap");
  }

  /**
   * Unpublishes every version of {@code adapterRef}, committed at once: a test's adapter left
   * published could win other tests' {@code auto} prompts and be sent to a node that is gone.
   */
  public static void unpublish(jakarta.persistence.EntityManager em, String adapterRef) {
    io.quarkus.narayana.jta.QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "UPDATE adapter_version SET state = 'unpublished' WHERE adapter_id ="
                            + " (SELECT id FROM adapter WHERE adapter_ref = :a)")
                    .setParameter("a", adapterRef)
                    .executeUpdate());
  }
}
