package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.path.json.JsonPath;
import io.tensafe.marketplace.fleet.NodeDispatcher;
import io.tensafe.marketplace.testing.Actors;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gateway against nodes that lie, stall or were registered with broken URLs: what a node claims
 * never bills more than the gateway saw, a report comes only from the node a request went to, a
 * stalled node ends its request without billing it, and no slot or reservation leaks.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(UntrustedNodeTest.OneSecondFirstByte.class)
class UntrustedNodeTest {
  /** A first-byte timeout of one second. */
  public static class OneSecondFirstByte implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("tensafe.gateway.first-byte-timeout", "PT1S");
    }
  }

  @Inject EntityManager em;
  @Inject NodeDispatcher dispatcher;

  FakeNode node;
  GatewayFixture fixture;

  @BeforeEach
  void aPublishedAdapterANodeAndAKey() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private io.restassured.response.Response chat(boolean stream) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":16"
                + (stream ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}" : "")
                + "}")
        .post("/v1/chat/completions");
  }

  /** The prompt's tokens as the marketplace counts them with the nodes' tokenizer. */
  private static final long PROMPT_TOKENS = FakeNode.userPromptTokens("hi");

  @Test
  void aNodeClaimingAMillionTokensForA16TokenRequest_isBilledAtMostWhatTheGatewaySaw() {
    node.claimedTokens = 1_000_000;
    JsonPath answer = chat(false).then().statusCode(200).extract().jsonPath();
    String requestId = answer.getString("tensafe.request_id");
    // "Hello" was relayed: one token as the marketplace counts it, + the end-of-turn token; the
    // prompt as the marketplace counted it.
    assertEquals(List.of(PROMPT_TOKENS, 2L), charged(requestId));
    assertEquals(2, answer.getInt("usage.completion_tokens"));
    assertEquals(
        Math.ceilDiv(PROMPT_TOKENS * 1500 + 2 * 2000, 1000),
        answer.getLong("tensafe.amount_micros"));

    String streamed = chat(true).then().statusCode(200).extract().asString();
    String streamedId = streamed.replaceAll("(?s).*\"request_id\":\"([0-9a-f-]{36})\".*", "$1");
    assertEquals(List.of(PROMPT_TOKENS, 2L), charged(streamedId));
    assertTrue(streamed.contains("\"completion_tokens\":2"), streamed);
  }

  @Test
  void aReportFromANodeTheRequestWasNotSentTo_isRefusedAndBillsNothing() throws Exception {
    String requestId =
        chat(false).then().statusCode(200).extract().jsonPath().getString("tensafe.request_id");
    // A second credential registers a node into the same fleet and reports the request.
    String other = Actors.token("node-other-" + fixture.suffix(), "node");
    Actors.registerNode(
            other,
            fixture.fleet(),
            "node-9",
            "{\"fleetId\":\"fleet-"
                + fixture.suffix()
                + "\",\"name\":\"node-9\",\"baseModels\":[\"tensafe/qwen3-tiny\"],"
                + "\"accelerator\":\"cpu\",\"maxConcurrency\":4}")
        .then()
        .statusCode(200);
    postJson(other, "/api/node/usage", report(requestId, "node-9", 1_000_000))
        .then()
        .statusCode(409)
        .contentType("application/problem+json");
    assertEquals(
        0L,
        count("SELECT count(*) FROM usage_event WHERE request_id = CAST(?1 AS uuid)", requestId));
    assertEquals(List.of(PROMPT_TOKENS, 2L), charged(requestId));
  }

  @Test
  void
      aNodeThatAnswersAfterTheFirstByteTimeout_endsTheRequest_billsNothing_andItsLateReportSettles()
          throws Exception {
    node.answerDelayMillis = 2000;
    chat(false)
        .then()
        .statusCode(504)
        .contentType("application/problem+json")
        .body("detail", not(containsString("node-1")));
    String requestId = node.requests.getLast().path("request_id").asText();
    assertEquals("node_timeout", outcome(requestId));
    assertEquals(0L, count("SELECT count(*) FROM charge WHERE request_id = ?1", requestId));
    // The node may have run it: its reservation is kept, not refunded.
    assertEquals(
        0L,
        count(
            "SELECT count(*) FROM dp_budget_event WHERE request_id = ?1 AND kind = 'refund'",
            requestId));
    Thread.sleep(1500); // the node finishes after the gateway gave up
    postJson(fixture.nodeToken(), "/api/node/usage", report(requestId, "node-1", 2))
        .then()
        .statusCode(201);
    assertEquals(0L, count("SELECT count(*) FROM charge WHERE request_id = ?1", requestId));
    // It claims 28 releases; the reservation, (prompt + max_tokens) × 1, is the most it can be.
    assertEquals(
        Math.min(28L, PROMPT_TOKENS + 16),
        count(
            "SELECT releases FROM dp_budget_event WHERE request_id = ?1 AND kind = 'settle'",
            requestId));
    assertEquals(0, dispatcher.load(nodeId("node-1")));
  }

  private String registration(String name, FakeNode at) {
    return "{\"fleetId\":\"fleet-"
        + fixture.suffix()
        + "\",\"name\":\""
        + name
        + "\",\"baseModels\":[\"tensafe/qwen3-tiny\"],\"accelerator\":\"cpu\","
        + "\"maxConcurrency\":4,\"url\":\""
        + at.url()
        + "\",\"dispatchToken\":\""
        + at.dispatchToken
        + "\"}";
  }

  private io.restassured.response.Response postRegistration(String token, String body) {
    return postJson(token, "/api/node/register", body);
  }

  @Test
  void aSecondCredentialWithoutTheFleetKey_cannotJoinTheFleet_andItsRecordingNodeGetsNoPrompt()
      throws Exception {
    try (FakeNode recorder = new FakeNode()) {
      String intruder = Actors.token("intruder-" + fixture.suffix(), "node");
      // Without a proof: 400. With a proof made with another key of the same fleet id: the
      // challenge does not even unwrap, so it sends a guess: 403.
      postRegistration(intruder, registration("node-x", recorder))
          .then()
          .statusCode(400)
          .contentType("application/problem+json");
      io.tensafe.tgsp.crypto.FleetKeyPair forged =
          io.tensafe.tgsp.crypto.FleetKeyPair.generate("fleet-" + fixture.suffix(), Actors.RANDOM);
      org.junit.jupiter.api.Assertions.assertThrows(
          io.tensafe.tgsp.crypto.KeyUnwrapException.class,
          () -> Actors.registerNode(intruder, forged, "node-x", registration("node-x", recorder)));
      String challenge =
          postJson(
                  intruder,
                  "/api/node/register/challenge",
                  "{\"fleetId\":\"fleet-" + fixture.suffix() + "\",\"name\":\"node-x\"}")
              .then()
              .statusCode(201)
              .extract()
              .path("challengeId");
      String guess = registration("node-x", recorder);
      guess =
          guess.substring(0, guess.length() - 1)
              + ",\"fleetProof\":{\"challengeId\":\""
              + challenge
              + "\",\"nonce\":\""
              + "A".repeat(43)
              + "\"}}";
      postRegistration(intruder, guess)
          .then()
          .statusCode(403)
          .contentType("application/problem+json");
      // Taking over node-1's name with the real fleet key is refused too: the name is held.
      Actors.registerNode(intruder, fixture.fleet(), "node-1", registration("node-1", recorder))
          .then()
          .statusCode(409);
      for (int i = 0; i < 4; i++) {
        chat(false).then().statusCode(200).body("tensafe.node", equalTo("node-1"));
      }
      assertEquals(List.of(), recorder.requests, "the intruder's node received a prompt");
    }
  }

  @Test
  void aChallenge_answersOneRegistration_ofItsOwnCredentialAndName() throws Exception {
    String proof = Actors.fleetProof(fixture.nodeToken(), fixture.fleet(), "node-1");
    String body = registration("node-1", node);
    String proved = body.substring(0, body.length() - 1) + ",\"fleetProof\":" + proof + "}";
    String otherName = registration("node-7", node);
    String misused =
        otherName.substring(0, otherName.length() - 1) + ",\"fleetProof\":" + proof + "}";
    postRegistration(fixture.nodeToken(), misused).then().statusCode(403);
    postRegistration(Actors.token("someone-" + fixture.suffix(), "node"), proved)
        .then()
        .statusCode(403);
    postRegistration(fixture.nodeToken(), proved).then().statusCode(200);
    postRegistration(fixture.nodeToken(), proved).then().statusCode(403); // used once
  }

  @Test
  void aNodeLineOverTheLimit_isANodeFailure_notBuffered() {
    node.hugeLineBytes = io.tensafe.marketplace.fleet.NodeCall.MAX_LINE_BYTES + 1;
    chat(false)
        .then()
        .statusCode(502)
        .contentType("application/problem+json")
        .body("detail", containsString("failed mid-generation"));
    String id = node.requests.getLast().path("request_id").asText();
    // Why is for admins (ADR 0028): the request's record says it.
    String recorded =
        (String)
            em.createNativeQuery(
                    "SELECT node_error FROM gateway_request WHERE request_id = cast(?1 AS uuid)")
                .setParameter(1, id)
                .getSingleResult();
    assertTrue(
        recorded.contains(String.valueOf(io.tensafe.marketplace.fleet.NodeCall.MAX_LINE_BYTES)),
        recorded);
  }

  @Test
  void malformedNodeUrls_areRefusedAtRegistration() throws Exception {
    for (String url : List.of("http://a^b", "http://h:99999", "http://h:0", "ftp://h:80")) {
      fixture
          .register("node-bad", url, List.of(), 4, node.dispatchToken)
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body(containsString("url"));
    }
  }

  @Test
  void storedNodesWithMalformedUrls_failOverOrAnswer503_leakNoSlot_andSpendNoBudget()
      throws Exception {
    fixture.registerNode("node-2", node.url(), List.of(), 4, node.dispatchToken);
    setEndpoint("node-2", "http://a^b");
    for (int i = 0; i < 3; i++) {
      chat(false).then().statusCode(200).body("tensafe.node", equalTo("node-1"));
    }
    assertEquals(0, dispatcher.load(nodeId("node-1")));
    assertEquals(0, dispatcher.load(nodeId("node-2")));

    setEndpoint("node-1", "http://h:99999");
    String spentBefore = spent();
    for (int i = 0; i < 3; i++) {
      chat(false)
          .then()
          .statusCode(503)
          .header("Retry-After", notNullValue())
          .contentType("application/problem+json");
    }
    assertEquals(spentBefore, spent());
    assertEquals(0, dispatcher.load(nodeId("node-1")));
    assertEquals(0, dispatcher.load(nodeId("node-2")));
  }

  private void setEndpoint(String name, String url) {
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery("UPDATE node SET endpoint = ?1 WHERE id = ?2")
                    .setParameter(1, url)
                    .setParameter(2, nodeId(name))
                    .executeUpdate());
  }

  private UUID nodeId(String name) {
    return (UUID)
        em.createNativeQuery(
                "SELECT n.id FROM node n JOIN node_fleet f ON f.id = n.fleet_id"
                    + " WHERE f.fleet_ref = ?1 AND n.name = ?2")
            .setParameter(1, "fleet-" + fixture.suffix())
            .setParameter(2, name)
            .getSingleResult();
  }

  /** The ρ spent of every budget of this fixture's client, as text. */
  private String spent() {
    return String.valueOf(
        em.createNativeQuery(
                "SELECT coalesce(sum(b.rho_spent), 0) FROM dp_budget b JOIN adapter a"
                    + " ON a.id = b.adapter_id WHERE a.adapter_ref = ?1")
            .setParameter(1, fixture.adapterId())
            .getSingleResult());
  }

  private String outcome(String requestId) {
    return em.createNativeQuery("SELECT outcome FROM gateway_request WHERE request_id = ?1")
        .setParameter(1, UUID.fromString(requestId))
        .getSingleResult()
        .toString();
  }

  private List<Long> charged(String requestId) {
    Object[] row =
        (Object[])
            em.createNativeQuery(
                    "SELECT prompt_tokens, completion_tokens FROM charge WHERE request_id = ?1")
                .setParameter(1, requestId)
                .getSingleResult();
    return List.of(((Number) row[0]).longValue(), ((Number) row[1]).longValue());
  }

  private long count(String sql, String requestId) {
    Object value = em.createNativeQuery(sql).setParameter(1, requestId).getSingleResult();
    return value == null ? 0 : ((Number) value).longValue();
  }

  private String report(String requestId, String nodeName, int completionTokens) {
    return """
        {"requestId":"%s","node":"%s","adapterId":"%s","adapterVersion":"1.0.0",
         "promptTokens":5,"completionTokens":%d,"finishReason":"stop","dpReleases":28,
         "dpNoiseMultiplier":50,"heCalls":24,"heEncryptions":28,"hePlaintextProducts":28,
         "heDecryptions":28,"heMillis":1.5,"totalMillis":3.0,
         "startedAt":"2026-11-22T10:00:00Z","finishedAt":"2026-11-22T10:00:01Z"}
        """
        .formatted(requestId, nodeName, fixture.adapterId(), completionTokens);
  }
}
