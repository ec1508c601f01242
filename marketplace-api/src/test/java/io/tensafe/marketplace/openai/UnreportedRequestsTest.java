package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node killed mid-stream never reports: after the report deadline its reservation is settled to
 * what the gateway relayed plus the run-ahead, not kept whole, and a late report only lowers it.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(UnreportedRequestsTest.FastDeadline.class)
class UnreportedRequestsTest {
  /**
   * Reports are due one second after a request ends, a request no replica vouched for in a second
   * is lost, a sweep every 0.2 s; four tokens of run-ahead.
   */
  public static class FastDeadline implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.gateway.report-deadline", "PT1S",
          "tensafe.gateway.sweep-period", "PT0.2S",
          "tensafe.gateway.lost-after", "PT1S",
          "tensafe.gateway.node-run-ahead-tokens", "4");
    }
  }

  @Inject EntityManager em;

  FakeNode node;
  GatewayFixture fixture;

  @BeforeEach
  void aNodeThatDiesAfterOneToken() throws Exception {
    node = new FakeNode();
    node.dieAfterFirstToken = true;
    fixture = GatewayFixture.create();
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private String streamCutShort() {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"stream\":true,\"max_tokens\":200,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
        .post("/v1/chat/completions")
        .then()
        .statusCode(200)
        .extract()
        .header("X-Request-Id");
  }

  private long releases(String requestId, String kind) {
    Object v =
        em.createNativeQuery(
                "SELECT sum(releases) FROM dp_budget_event WHERE request_id = ?1 AND kind = ?2")
            .setParameter(1, requestId)
            .setParameter(2, kind)
            .getSingleResult();
    return v == null ? -1 : ((Number) v).longValue();
  }

  private void awaitBound(String requestId) throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (releases(requestId, "bound") < 0 && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
  }

  private void report(String requestId, long dpReleases) {
    postJson(
            fixture.nodeToken(),
            "/api/node/usage",
            """
            {"requestId":"%s","node":"node-1","adapterId":"%s","adapterVersion":"1.0.0",
             "promptTokens":5,"completionTokens":1,"finishReason":"cancelled","dpReleases":%d,
             "dpNoiseMultiplier":50,"heCalls":1,"heEncryptions":1,"hePlaintextProducts":1,
             "heDecryptions":1,"heMillis":1.0,"totalMillis":1.0,
             "startedAt":"2026-11-22T10:00:00Z","finishedAt":"2026-11-22T10:00:01Z"}
            """
                .formatted(requestId, fixture.adapterId(), dpReleases))
        .then()
        .statusCode(201);
  }

  @Test
  void anUnreportedReservation_isSettledToRelayedPlusRunAhead_andALateReportOnlyLowersIt()
      throws Exception {
    String high = streamCutShort();
    String low = streamCutShort();
    awaitBound(high);
    awaitBound(low);
    long reserved = releases(high, "reserve");
    // The node relayed "Hel" for the prompt and 1 completion token: (prompt + 1 + 4) × 1.
    long bound = FakeNode.userPromptTokens("hi") + 1 + 4;
    assertEquals(bound, releases(high, "bound"));
    assertEquals(bound, releases(low, "bound"));
    assertTrue(reserved > 200, "the reservation covered max_tokens: " + reserved);
    // A late report claiming more than the bound does not raise it; one claiming less lowers it.
    report(high, 28);
    report(low, 6);
    assertEquals(bound, releases(high, "settle"));
    // Lowered, though never below what its prompt implies (one release per prompt token).
    assertEquals(Math.max(6, FakeNode.userPromptTokens("hi")), releases(low, "settle"));
  }

  @Test
  void aRequestWhoseNodeAnswersAfterTheReportDeadline_isNotTakenForLostWhileItIsDispatched()
      throws Exception {
    node.dieAfterFirstToken = false;
    node.answerDelayMillis = 2_500; // the sweep runs every 0.2 s; reports are due after 1 s
    String id =
        given()
            .header("Authorization", "Bearer " + fixture.apiKey())
            .contentType("application/json")
            .body(
                "{\"model\":\""
                    + fixture.adapterId()
                    + "\",\"max_tokens\":20,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
            .post("/v1/chat/completions")
            .then()
            .statusCode(200)
            .extract()
            .header("X-Request-Id");
    Object[] row =
        (Object[])
            em.createNativeQuery(
                    "SELECT outcome, delivered_completion_tokens FROM gateway_request"
                        + " WHERE request_id = cast(?1 AS uuid)")
                .setParameter(1, id)
                .getSingleResult();
    assertEquals("completed", row[0], "the relaying gateway ended it, not the sweep");
    assertEquals(2, ((Number) row[1]).intValue(), "billed for what was relayed");
  }
}
