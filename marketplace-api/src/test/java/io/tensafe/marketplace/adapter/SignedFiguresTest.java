package io.tensafe.marketplace.adapter;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.response.ValidatableResponse;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.AdapterPacker;
import io.tensafe.tgsp.packaging.PackOptions;
import io.tensafe.tgsp.peft.SyntheticAdapter;
import io.tensafe.tgsp.safetensors.DType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The DP figures a creator signs (ADR 0035): the manifest's {@code dp_policy} and {@code
 * measured_effect} are shown as signed, with who measured them, in the upload's answer, the
 * catalogue and {@code /v1/models}; a package packed without a measurement shows none. A policy
 * without noise (z = 0) is accepted, one with noise below z = 0.3 refused.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class SignedFiguresTest {
  private static final String SOURCE =
      "signed by the creator's tgsp pack on the weights; the marketplace cannot read the weights"
          + " and shows the figures as signed";
  private static final Manifest.MeasuredEffect EFFECT =
      new Manifest.MeasuredEffect(
          Manifest.MeasuredEffect.METHOD,
          "creator",
          8,
          64,
          61,
          new BigDecimal("0.934426"),
          new BigDecimal("0.0421"),
          OptionalLong.of(1_234_567));

  @Inject EntityManager em;

  String suffix;
  String creator;
  Actors.Seller seller;
  final List<String> published = new ArrayList<>();

  @BeforeEach
  void seller() throws Exception {
    suffix = Actors.suffix();
    creator = "creator-" + suffix;
    seller = Actors.seller(suffix, creator);
  }

  @AfterEach
  void unpublish() {
    published.forEach(ref -> Actors.unpublish(em, ref));
  }

  /** A package of a synthetic adapter under noise multiplier {@code z}, with {@code effect}. */
  private byte[] pack(String adapterRef, String z, Manifest.MeasuredEffect effect)
      throws Exception {
    Path dir = Files.createTempDirectory("pkg");
    Path peft =
        new SyntheticAdapter(1, 32, 4, 8, List.of("q_proj"), DType.F32, "Qwen/Qwen2.5-0.5B")
            .write(dir.resolve("peft"), 1);
    PackOptions options =
        new PackOptions(
            UUID.randomUUID().toString(),
            new Manifest.Adapter(adapterRef, "1.0.0"),
            Optional.empty(),
            Optional.empty(),
            new Manifest.Routing(List.of("figures" + suffix), "finance"),
            new Manifest.Price("USD", 1500, 2000),
            "proprietary",
            new Manifest.DpPolicy(
                new BigDecimal("2.5"),
                new BigDecimal(z),
                new BigDecimal("0.00001"),
                BigDecimal.TEN,
                30),
            Optional.empty(),
            OptionalInt.empty(),
            4096,
            Instant.now());
    if (effect != null) {
      options = options.withMeasuredEffect(effect);
    }
    Path file = dir.resolve("a.tgsp");
    AdapterPacker.pack(
        peft,
        options,
        seller.key(),
        List.of(seller.fleet().publicKey()),
        Actors.RANDOM,
        file,
        d -> {});
    return Files.readAllBytes(file);
  }

  private ValidatableResponse upload(byte[] pkg) {
    return given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .contentType("application/octet-stream")
        .body(pkg)
        .post("/api/creator/packages")
        .then();
  }

  private void publish(String adapterRef) {
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .post("/api/creator/adapters/" + adapterRef + "/versions/1.0.0/publish")
        .then()
        .statusCode(200);
    published.add(adapterRef);
  }

  private ValidatableResponse catalogue(String adapterRef) {
    return given()
        .auth()
        .oauth2(Actors.token("client-" + suffix, "client"))
        .queryParam("q", adapterRef)
        .get("/api/catalog")
        .then()
        .statusCode(200)
        .body("items.size()", equalTo(1))
        .body("items[0].adapterId", equalTo(adapterRef));
  }

  private String apiKey() {
    return postJson(
            Actors.token("client-" + suffix, "client"),
            "/api/client/api-keys",
            "{\"name\":\"figures\"}")
        .then()
        .statusCode(201)
        .extract()
        .path("key");
  }

  private ValidatableResponse model(String key, String adapterRef) {
    return given()
        .header("Authorization", "Bearer " + key)
        .get("/v1/models/" + adapterRef)
        .then()
        .statusCode(200);
  }

  @Test
  void measuredEffect_isShownAsSigned_inTheUploadAnswerTheCatalogueAndModels() throws Exception {
    String ref = "adapter-" + suffix;
    ValidatableResponse answer = upload(pack(ref, "0.5", EFFECT)).statusCode(201);
    answer
        .body("dpPolicy.noise_multiplier", equalTo("0.5"))
        .body("dpPolicy.clip_norm", equalTo("2.5"))
        .body("measuredEffect.method", equalTo(Manifest.MeasuredEffect.METHOD))
        .body("measuredEffect.prompt_source", equalTo("creator"))
        .body("measuredEffect.prompts", equalTo(8))
        .body("measuredEffect.tokens_per_prompt", equalTo(64))
        .body("measuredEffect.positions", equalTo(61))
        .body("measuredEffect.greedy_agreement", equalTo("0.934426"))
        .body("measuredEffect.kl_ratio", equalTo("0.0421"))
        .body("measuredEffect.tokens_per_period", equalTo(1_234_567))
        .body("measuredEffectSource", equalTo(SOURCE));
    publish(ref);
    catalogue(ref)
        .body("items[0].dpPolicy.noise_multiplier", equalTo("0.5"))
        .body("items[0].measuredEffect.greedy_agreement", equalTo("0.934426"))
        .body("items[0].measuredEffect.kl_ratio", equalTo("0.0421"))
        .body("items[0].measuredEffect.positions", equalTo(61))
        .body("items[0].measuredEffect.tokens_per_period", equalTo(1_234_567))
        .body("items[0].measuredEffectSource", equalTo(SOURCE));
    String key = apiKey();
    model(key, ref)
        .body("tensafe.dp_policy.noise_multiplier", equalTo("0.5"))
        .body("tensafe.measured_effect.greedy_agreement", equalTo("0.934426"))
        .body("tensafe.measured_effect.kl_ratio", equalTo("0.0421"))
        .body("tensafe.measured_effect.prompt_source", equalTo("creator"))
        .body("tensafe.measured_effect.tokens_per_period", equalTo(1_234_567))
        .body("tensafe.measured_effect_source", equalTo(SOURCE));
    given()
        .header("Authorization", "Bearer " + key)
        .get("/v1/models")
        .then()
        .statusCode(200)
        .body(
            "data.find { it.id == '" + ref + "' }.tensafe.measured_effect.greedy_agreement",
            equalTo("0.934426"))
        .body(
            "data.find { it.id == '" + ref + "' }.tensafe.measured_effect_source", equalTo(SOURCE));
  }

  @Test
  void noNoisePolicy_isAccepted_andAPackageWithoutAMeasurementShowsNone() throws Exception {
    String ref = "plain-" + suffix;
    upload(pack(ref, "0", null))
        .statusCode(201)
        .body("dpPolicy.noise_multiplier", equalTo("0"))
        .body("measuredEffect", nullValue())
        .body("measuredEffectSource", nullValue());
    publish(ref);
    catalogue(ref)
        .body("items[0].dpPolicy.noise_multiplier", equalTo("0"))
        .body("items[0].measuredEffect", nullValue())
        .body("items[0].measuredEffectSource", nullValue());
    model(apiKey(), ref)
        .body("tensafe.dp_policy.noise_multiplier", equalTo("0"))
        .body("tensafe", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasKey("measured_effect")))
        .body(
            "tensafe",
            org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasKey("measured_effect_source")));
  }

  @Test
  void noiseBelowTheFloor_isRefused_namingTheRule() throws Exception {
    upload(pack("weak-" + suffix, "0.1", EFFECT))
        .statusCode(422)
        .contentType("application/problem+json")
        .body("type", equalTo("https://tensafe.io/problems/package-manifest-rejected"))
        .body("detail", containsString("noise multiplier must be 0 (no noise) or at least 0.3"));
  }
}
