package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.gateway.ServedVersions;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An adapter that cannot run on its base model is refused at upload when the fleet's nodes have
 * reported the model's shape, and a node's refusal at run time is a 422 that ends the request, not
 * a retryable 503.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class IncompatibleAdapterTest {
  /** The demo model's shape: hidden 64, MLP 128, 2 layers, 4 heads and 2 key/value heads of 16. */
  static final String TINY_SHAPE =
      "\"modelShape\":{\"hiddenSize\":64,\"intermediateSize\":128,\"layers\":2,"
          + "\"attentionHeads\":4,\"keyValueHeads\":2,\"headDim\":16}";

  @Inject EntityManager em;
  @Inject ServedVersions versions;

  FakeNode node;
  GatewayFixture fixture;

  @BeforeEach
  void aPublishedAdapterAndANode() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  /**
   * Registers node {@code name} of the fixture's fleet serving {@code baseModel} with the shape
   * {@code shapeJson} (a {@code "modelShape":{...}} member), and a signing key for the creator.
   */
  private CreatorKeyPair shapedNodeAndCreator(String name, String baseModel, String shapeJson)
      throws Exception {
    Actors.registerNode(
            fixture.nodeToken(),
            fixture.fleet(),
            name,
            "{\"fleetId\":\"fleet-"
                + fixture.suffix()
                + "\",\"name\":\""
                + name
                + "\",\"baseModels\":[\""
                + baseModel
                + "\"],\"accelerator\":\"cpu\",\"maxConcurrency\":4,"
                + shapeJson
                + "}")
        .then()
        .statusCode(200);
    CreatorKeyPair key = CreatorKeyPair.generate("acme-" + fixture.suffix(), Actors.RANDOM);
    Actors.registerKey("creator-" + fixture.suffix(), key);
    return key;
  }

  @Test
  void anUploadThatDoesNotFitTheShapeItsFleetsNodesReported_is422NamingTheTensor()
      throws Exception {
    CreatorKeyPair key = shapedNodeAndCreator("node-shaped", "tensafe/qwen3-tiny", TINY_SHAPE);
    // Actors.pack's adapter is 32 wide; the tiny model's q_proj maps 64 to 64.
    byte[] misfit =
        Actors.pack(
            "misfit-" + fixture.suffix(), "1.0.0", fixture.fleet(), key, "tensafe/qwen3-tiny");
    given()
        .auth()
        .oauth2(Actors.token("creator-" + fixture.suffix(), "creator"))
        .contentType("application/octet-stream")
        .body(misfit)
        .post("/api/creator/packages")
        .then()
        .statusCode(422)
        .contentType("application/problem+json")
        .body("type", containsString("package-incompatible"))
        .body("detail", containsString("q_proj maps 64 to 64"));
  }

  /**
   * A Qwen3-MoE node (4 layers, every second sparse but layer 3, 4 experts of width 24, 2 per
   * token): adapters on its experts upload, misplaced ones are refused naming the tensor, and a
   * token's releases count the experts it runs, not every adapted expert.
   */
  @Test
  void expertAdapters_fitTheReportedExperts_andCountTheExpertsATokenRuns() throws Exception {
    String experts =
        "\"modelShape\":{\"hiddenSize\":64,\"intermediateSize\":128,\"layers\":4,"
            + "\"attentionHeads\":4,\"keyValueHeads\":2,\"headDim\":16,\"experts\":{"
            + "\"experts\":4,\"expertsPerToken\":2,\"intermediateSize\":24,\"sparseStep\":2,"
            + "\"mlpOnlyLayers\":[3]}}";
    CreatorKeyPair key = shapedNodeAndCreator("node-moe", "tensafe/qwen3-tiny-moe", experts);
    io.tensafe.tgsp.peft.BaseModelShape shape =
        new io.tensafe.tgsp.peft.BaseModelShape(
            64, 128, 4, 4, 2, 16, new io.tensafe.tgsp.peft.ExpertShape(4, 2, 24, 2, List.of(3)));
    java.nio.file.Path peft =
        io.tensafe.tgsp.peft.SyntheticAdapter.fitting(
                shape,
                4,
                4,
                8,
                List.of("q_proj", "k_proj", "v_proj", "gate_proj", "up_proj", "down_proj"),
                io.tensafe.tgsp.safetensors.DType.F32,
                "tensafe/qwen3-tiny-moe")
            .write(java.nio.file.Files.createTempDirectory("moe").resolve("peft"), 1);
    String ref = "experts-" + fixture.suffix();
    Actors.upload(
        "creator-" + fixture.suffix(),
        Actors.pack(peft, ref, "1.0.0", fixture.fleet(), key, List.of("bank"), "1.1", 1500, 2000));
    // Per token, one release per site (ADR 0035): q, k and v in 4 layers; in sparse layer 1 gate,
    // up and down of each of the 2 experts it runs (not all 4); the dense MLPs of layers 0, 2, 3
    // three sites each.
    assertEquals(3 * 4 + 3 * 2 + 3 * 3, versions.releasesPerToken(ref, "1.0.0"));

    java.nio.file.Path dense =
        io.tensafe.tgsp.peft.SyntheticAdapter.fitting(
                new io.tensafe.tgsp.peft.BaseModelShape(64, 128, 4, 4, 2, 16),
                2,
                4,
                8,
                List.of("gate_proj"),
                io.tensafe.tgsp.safetensors.DType.F32,
                "tensafe/qwen3-tiny-moe")
            .write(java.nio.file.Files.createTempDirectory("dense").resolve("peft"), 1);
    given()
        .auth()
        .oauth2(Actors.token("creator-" + fixture.suffix(), "creator"))
        .contentType("application/octet-stream")
        .body(
            Actors.pack(
                dense,
                "dense-" + fixture.suffix(),
                "1.0.0",
                fixture.fleet(),
                key,
                List.of("bank"),
                "1.1",
                1500,
                2000))
        .post("/api/creator/packages")
        .then()
        .statusCode(422)
        .contentType("application/problem+json")
        .body("type", containsString("package-incompatible"))
        .body("detail", containsString("layer 1 routes its MLP to experts"));
  }

  @Test
  void aNodeThatRefusesTheAdapter_is422_notFailedOver_settledToItsBoundAndEnded() throws Exception {
    node.refuseWith = 422;
    try (FakeNode second = new FakeNode()) {
      fixture.registerNode(
          "node-1", node.url(), List.of(fixture.adapterId()), 4, node.dispatchToken);
      fixture.registerNode("node-2", second.url(), List.of(), 4, second.dispatchToken);
      given()
          .header("Authorization", "Bearer " + fixture.apiKey())
          .contentType("application/json")
          .body(
              "{\"model\":\""
                  + fixture.adapterId()
                  + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":8}")
          .post("/v1/chat/completions")
          .then()
          .statusCode(422)
          .contentType("application/problem+json")
          .body("type", containsString("adapter-incompatible"))
          .body("detail", not(containsString("secret node detail")))
          .body("detail", not(containsString("node-1")));
      assertEquals(List.of(), second.requests, "an adapter refusal is not failed over");
      String requestId = node.requests.getLast().path("request_id").asText();
      // The node had the prompt when it refused: no refund (it may have run it), its reservation
      // settled to the most it can have released, the prompt and the run-ahead (ADR 0026), at most
      // the reservation (prompt + max_tokens 8).
      Object[] row =
          (Object[])
              em.createNativeQuery(
                      "SELECT outcome, (SELECT count(*) FROM dp_budget_event e"
                          + " WHERE e.request_id = ?2 AND e.kind = 'refund'),"
                          + " (SELECT releases FROM dp_budget_event e"
                          + " WHERE e.request_id = ?2 AND e.kind = 'bound')"
                          + " FROM gateway_request WHERE request_id = ?1")
                  .setParameter(1, UUID.fromString(requestId))
                  .setParameter(2, requestId)
                  .getSingleResult();
      long perToken = 1; // one LoRA input
      assertEquals(
          List.of(
              "rejected",
              0L,
              Math.min(FakeNode.userPromptTokens("hi") + 64, FakeNode.userPromptTokens("hi") + 8)
                  * perToken),
          List.of(row[0].toString(), ((Number) row[1]).longValue(), ((Number) row[2]).longValue()));
    }
  }
}
