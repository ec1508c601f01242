package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
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

  @Test
  void anUploadThatDoesNotFitTheShapeItsFleetsNodesReported_is422NamingTheTensor()
      throws Exception {
    Actors.registerNode(
            fixture.nodeToken(),
            fixture.fleet(),
            "node-shaped",
            "{\"fleetId\":\"fleet-"
                + fixture.suffix()
                + "\",\"name\":\"node-shaped\",\"baseModels\":[\"tensafe/qwen3-tiny\"],"
                + "\"accelerator\":\"cpu\",\"maxConcurrency\":4,"
                + TINY_SHAPE
                + "}")
        .then()
        .statusCode(200);
    CreatorKeyPair key = CreatorKeyPair.generate("acme-" + fixture.suffix(), Actors.RANDOM);
    Actors.registerKey("creator-" + fixture.suffix(), key);
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

  @Test
  void aNodeThatRefusesTheAdapter_is422_notFailedOver_refundedAndEnded() throws Exception {
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
      Object[] row =
          (Object[])
              em.createNativeQuery(
                      "SELECT outcome, (SELECT count(*) FROM dp_budget_event e"
                          + " WHERE e.request_id = ?2 AND e.kind = 'refund')"
                          + " FROM gateway_request WHERE request_id = ?1")
                  .setParameter(1, UUID.fromString(requestId))
                  .setParameter(2, requestId)
                  .getSingleResult();
      assertEquals(
          List.of("rejected", 1L), List.of(row[0].toString(), ((Number) row[1]).longValue()));
    }
  }
}
