package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;

import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import java.util.List;

/**
 * What a metered-API test needs: a published adapter (price 1500/2000 micro-units per 1k prompt /
 * completion tokens, DP noise multiplier 50, keywords {@code keyword} and "mortgage"), a node
 * credential, and a client's API key, all under a fresh {@code suffix}.
 */
public record GatewayFixture(
    String suffix,
    String adapterId,
    String keyword,
    String apiKey,
    String nodeToken,
    FleetKeyPair fleet) {

  public static GatewayFixture create() throws Exception {
    return create("50");
  }

  /** As {@link #create()}, with the adapter's DP noise multiplier {@code noiseMultiplier}. */
  public static GatewayFixture create(String noiseMultiplier) throws Exception {
    return create(noiseMultiplier, 1, List.of("q_proj"));
  }

  /**
   * As {@link #create(String)}, for an adapter of LoRA on {@code modules} (e.g. {@code q_proj}) in
   * each of the base model's first {@code layers} layers.
   */
  public static GatewayFixture create(String noiseMultiplier, int layers, List<String> modules)
      throws Exception {
    String suffix = Actors.suffix();
    Actors.Seller seller = Actors.seller(suffix, "creator-" + suffix);
    FleetKeyPair fleet = seller.fleet();
    CreatorKeyPair key = seller.key();
    String adapterId = "bank-" + suffix;
    String keyword = "zq" + suffix;
    java.nio.file.Path peft =
        new io.tensafe.tgsp.peft.SyntheticAdapter(
                layers,
                32,
                4,
                8,
                modules,
                io.tensafe.tgsp.safetensors.DType.F32,
                "tensafe/qwen3-tiny")
            .write(java.nio.file.Files.createTempDirectory("peft").resolve("peft"), 1);
    Actors.upload(
        "creator-" + suffix,
        Actors.pack(
            peft,
            adapterId,
            "1.0.0",
            fleet,
            key,
            List.of(keyword, "mortgage"),
            noiseMultiplier,
            1500,
            2000));
    given()
        .auth()
        .oauth2(Actors.token("creator-" + suffix, "creator"))
        .post("/api/creator/adapters/" + adapterId + "/versions/1.0.0/publish")
        .then()
        .statusCode(200);
    String apiKey =
        postJson(
                Actors.token("client-" + suffix, "client"),
                "/api/client/api-keys",
                "{\"name\":\"test\"}")
            .then()
            .statusCode(201)
            .extract()
            .path("key");
    return new GatewayFixture(
        suffix, adapterId, keyword, apiKey, Actors.token("node-" + suffix, "node"), fleet);
  }

  /**
   * Has this fixture's creator offer private mode for {@code adapterRef@1.0.0} (one of its
   * adapters), each client organisation allowed {@code tokensPerPeriod} tokens per {@code
   * periodDays} days (issue 49); asserts the answer.
   */
  public void offerPrivateMode(String adapterRef, long tokensPerPeriod, int periodDays) {
    setPrivateMode(
            adapterRef,
            "{\"offered\":true,\"tokensPerPeriod\":"
                + tokensPerPeriod
                + ",\"periodDays\":"
                + periodDays
                + "}")
        .then()
        .statusCode(200);
  }

  /** As {@link #offerPrivateMode(String, long, int)} for the fixture's adapter, a large quota. */
  public void offerPrivateMode() {
    offerPrivateMode(adapterId, 1_000_000, 30);
  }

  /** PUTs {@code json} as this fixture's creator's private-mode setting of {@code adapterRef}. */
  public io.restassured.response.Response setPrivateMode(String adapterRef, String json) {
    return given()
        .auth()
        .oauth2(Actors.token("creator-" + suffix, "creator"))
        .contentType("application/json")
        .body(json)
        .put("/api/creator/adapters/" + adapterRef + "/versions/1.0.0/private-mode");
  }

  /** The fleet's public id. */
  public String fleetRef() {
    return "fleet-" + suffix;
  }

  /** A chat completion of {@code content} with this fixture's key and adapter. */
  public io.restassured.response.Response chat(String content) {
    return given()
        .header("Authorization", "Bearer " + apiKey)
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + adapterId
                + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\""
                + content
                + "\"}]}")
        .post("/v1/chat/completions");
  }

  /**
   * Registers a node of this fixture's fleet at {@code url}, running {@code maxConcurrency}, with
   * the dispatch token it expects.
   */
  public void registerNode(
      String name, String url, List<String> loaded, int maxConcurrency, String dispatchToken)
      throws Exception {
    register(name, url, loaded, maxConcurrency, dispatchToken).then().statusCode(200);
  }

  /**
   * The registration call itself, with a fleet proof made with this fixture's fleet key; {@code
   * dispatchToken} null leaves it out.
   */
  public io.restassured.response.Response register(
      String name, String url, List<String> loaded, int maxConcurrency, String dispatchToken)
      throws Exception {
    return registerAs(nodeToken, name, url, loaded, maxConcurrency, dispatchToken);
  }

  /** As {@link #register}, with another node credential's bearer token {@code credential}. */
  public io.restassured.response.Response registerAs(
      String credential,
      String name,
      String url,
      List<String> loaded,
      int maxConcurrency,
      String dispatchToken)
      throws Exception {
    return Actors.registerNode(
        credential,
        fleet,
        name,
        "{\"fleetId\":\"fleet-"
            + suffix
            + "\",\"name\":\""
            + name
            + "\",\"baseModels\":[\"tensafe/qwen3-tiny\"],\"accelerator\":\"cpu\","
            + "\"maxConcurrency\":"
            + maxConcurrency
            + ",\"url\":\""
            + url
            + "\",\"loadedAdapters\":["
            + String.join(",", loaded.stream().map(a -> "\"" + a + "\"").toList())
            + "]"
            + (dispatchToken == null ? "" : ",\"dispatchToken\":\"" + dispatchToken + "\"")
            + "}");
  }
}
