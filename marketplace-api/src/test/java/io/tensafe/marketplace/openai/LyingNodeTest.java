package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.path.json.JsonPath;
import io.tensafe.marketplace.gateway.GatewayRequests;
import io.tensafe.marketplace.gateway.RequestMode;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.tokens.PromptTokenizer;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The attacker is a node operator (issue 34, ADR 0026): whatever its final event or its usage
 * reports claim, each request is billed what the marketplace relayed, counted with the model's
 * tokenizer; the DP budget moves only by what was served; nothing is billed twice.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(LyingNodeTest.ShortDeadlines.class)
class LyingNodeTest {
  /**
   * First byte within a second, then an event at least every second; a second's wait for a node
   * slot; reports due two seconds after a request ends, and a request no replica vouched for in two
   * seconds lost; a sweep every 0.2 s; run-ahead 4.
   */
  public static class ShortDeadlines implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.gateway.first-byte-timeout", "PT1S",
          "tensafe.gateway.node-idle-timeout", "PT1S",
          "tensafe.gateway.slot-wait", "PT1S",
          "tensafe.gateway.report-deadline", "PT2S",
          "tensafe.gateway.sweep-period", "PT0.2S",
          "tensafe.gateway.lost-after", "PT2S",
          "tensafe.gateway.node-run-ahead-tokens", "4");
    }
  }

  private static final PromptTokenizer TOKENIZER = new PromptTokenizer();
  private static final int RUN_AHEAD = 4;

  /** The prompt's tokens as the marketplace counts them (the adapter makes 1 release a token). */
  private static final long PROMPT = FakeNode.userPromptTokens("hi");

  @Inject EntityManager em;
  @Inject GatewayRequests requests;
  @Inject PrivacyBudgets budgets;
  @Inject io.tensafe.marketplace.dashboard.DashboardQueries dashboard;

  @ConfigProperty(name = "quarkus.http.test-port")
  int port;

  FakeNode node;
  GatewayFixture fixture;
  Ledgers ledgers;

  @BeforeEach
  void aPublishedAdapterANodeAndAKey() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
    ledgers = new Ledgers(em);
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private String body(int maxTokens, boolean stream) {
    return "{\"model\":\""
        + fixture.adapterId()
        + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":"
        + maxTokens
        + (stream ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}" : "")
        + "}";
  }

  private io.restassured.response.Response chat(int maxTokens, boolean stream) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(body(maxTokens, stream))
        .post("/v1/chat/completions");
  }

  @Test
  void anInflatedCompletionCount_isBilledWhatWasRelayed() {
    node.claimedCompletion = 4000;
    JsonPath answer = chat(16, false).then().statusCode(200).extract().jsonPath();
    String id = answer.getString("tensafe.request_id");
    // "Hello" is one token, and the node stopped on its end-of-turn token.
    assertEquals(List.of(PROMPT, 2L), ledgers.charged(id));
    assertEquals(2, answer.getInt("usage.completion_tokens"));
    assertEquals(4000L, single("SELECT node_completion_tokens FROM gateway_request", id));
    // Admins see the difference per node.
    var load = dashboard.nodeLoads().get(nodeId("node-1").toString());
    assertEquals(1, load.crossChecked());
    assertEquals(1, load.countDifferences());
    assertEquals(4000 - 2, load.claimedOverCounted());
  }

  @Test
  void garbagePaddingUpToMaxTokens_isBilledAsTheTokenizerCountsTheRelayedText() {
    node.paddingDeltas = 250;
    JsonPath answer = chat(256, false).then().statusCode(200).extract().jsonPath();
    String id = answer.getString("tensafe.request_id");
    String text = answer.getString("choices[0].message.content");
    long counted = TOKENIZER.count(text) + 1;
    assertEquals(List.of(PROMPT, counted), ledgers.charged(id));
    assertTrue(counted < 252, "padding of one character a delta merges into fewer tokens");

    String streamed = chat(256, true).then().statusCode(200).extract().asString();
    String streamedId = streamed.replaceAll("(?s).*\"request_id\":\"([0-9a-f-]{36})\".*", "$1");
    assertEquals(List.of(PROMPT, counted), ledgers.charged(streamedId));
  }

  @Test
  void aNodeSendingMoreThanMaxTokens_fails_andTheClientPaysAtMostMaxTokens() {
    node.paddingDeltas = 60;
    chat(16, false).then().statusCode(502);
    String id = node.requests.getLast().path("request_id").asText();
    // A non-streamed answer that failed reached its client not at all: nothing is billed.
    assertEquals(0L, ledgers.count("SELECT count(*) FROM charge WHERE request_id = ?1", id));

    String streamed = chat(16, true).then().statusCode(200).extract().asString();
    assertTrue(streamed.contains("node-failed"), streamed);
    String streamedId = node.requests.getLast().path("request_id").asText();
    assertTrue(ledgers.charged(streamedId).get(1) <= 16, "billed " + ledgers.charged(streamedId));
    assertEquals("node_failed", ledgers.outcome(streamedId));
  }

  /**
   * The client's view of a node's failure, whatever the node's words: the answer's whole body (the
   * request id masked), streamed and not; the words reach the admins' node page instead.
   */
  @Test
  void aNodesErrorWords_neverReachTheClient_butReachTheAdmins() {
    List<String> views = new java.util.ArrayList<>();
    for (String words :
        List.of("alpha: connect 10.0.0.7:5432 refused", "beta " + "x".repeat(900))) {
      node.errorDetailAfterFirstToken = words;
      for (boolean stream : List.of(false, true)) {
        // Four failures in a row would trip the node's breaker (ADR 0038): not this test's point.
        UUID failing = nodeId("node-1");
        QuarkusTransaction.requiringNew()
            .run(
                () ->
                    em.createNativeQuery(
                            "UPDATE node SET failure_streak = 0, tripped_until = NULL"
                                + " WHERE id = ?1")
                        .setParameter(1, failing)
                        .executeUpdate());
        io.restassured.response.Response r = chat(16, stream);
        String id = node.requests.getLast().path("request_id").asText();
        String body = r.then().extract().asString();
        assertTrue(body.contains(id), "the client is given the request id: " + body);
        views.add(
            r.statusCode()
                + " "
                + body.replace(id, "<id>").replaceAll("\"created\":\\d+", "\"created\":0"));
        String recorded =
            (String)
                em.createNativeQuery(
                        "SELECT node_error FROM gateway_request WHERE request_id = cast(?1 AS uuid)")
                    .setParameter(1, id)
                    .getSingleResult();
        assertTrue(recorded.contains(words.substring(0, 5)), recorded);
      }
    }
    assertEquals(views.get(0), views.get(2), "non-streamed views differ with the node's words");
    assertEquals(views.get(1), views.get(3), "streamed views differ with the node's words");
    String page = dashboard.nodeLoads().get(nodeId("node-1").toString()).lastFailure();
    assertTrue(page.startsWith("beta xxx"), page);
  }

  @Test
  void aStreamSlowerThanTheReportDeadline_isStillItsGatewaysToBill() throws Exception {
    // 30 pieces 150 ms apart: 4.5 s, more than twice the 2 s deadline, and fewer than 64 pieces.
    node.countToMaxTokens = true;
    node.delayMillis = 150;
    String streamed = chat(30, true).then().statusCode(200).extract().asString();
    String id = streamed.replaceAll("(?s).*\"request_id\":\"([0-9a-f-]{36})\".*", "$1");
    assertEquals("completed", ledgers.outcome(id));
    StringBuilder text = new StringBuilder();
    for (int i = 1; i <= 30; i++) {
      text.append('w').append(i).append(' ');
    }
    // The node ended on max_tokens ("length"): no end-of-turn token.
    assertEquals(
        List.of(PROMPT, (long) Math.min(30, TOKENIZER.count(text.toString()))),
        ledgers.charged(id));
  }

  @Test
  void aZeroClaim_stillPaysForWhatWasRelayed() {
    node.claimedTokens = 0;
    node.claimedReleases = 0;
    String id = chat(16, false).then().statusCode(200).extract().path("tensafe.request_id");
    assertEquals(List.of(PROMPT, 2L), ledgers.charged(id));
    // The budget is charged what the relayed tokens imply, whatever the node says.
    assertEquals(PROMPT + 2 - 1, ledgers.releases(id, "settle"));
    // Reserved for what it could use: the counted prompt and max_tokens, one release a token.
    assertEquals(PROMPT + 16, ledgers.releases(id, "reserve"));
  }

  @Test
  void nineBillionReleases_settleToWhatWasServed_andTheBudgetServesTheNextRequest() {
    node.claimedReleases = 9_000_000_000L;
    String id = chat(16, false).then().statusCode(200).extract().path("tensafe.request_id");
    assertEquals(PROMPT + 2 + RUN_AHEAD, ledgers.releases(id, "settle"));
    assertTrue(ledgers.releases(id, "settle") < ledgers.releases(id, "reserve"));
    node.claimedReleases = -1;
    chat(16, false).then().statusCode(200);
  }

  @Test
  void aReportSentBeforeItsOwnTimeout_billsNothing_andTheBudgetMovesOnlyByTheBound()
      throws Exception {
    node.beforeAnswer = b -> report(b.path("request_id").asText(), "node-1", 500, 9_000_000_000L);
    node.answerDelayMillis = 2500;
    chat(16, false).then().statusCode(504);
    String id = node.requests.getLast().path("request_id").asText();
    assertEquals(0L, ledgers.count("SELECT count(*) FROM charge WHERE request_id = ?1", id));
    long settled = awaitClosed(id);
    assertTrue(
        settled >= PROMPT && settled <= PROMPT + RUN_AHEAD,
        "settled " + settled + " releases for a request that relayed nothing");
  }

  @Test
  void aReportSentBeforeA503_billsNothing() throws Exception {
    node.beforeAnswer = b -> report(b.path("request_id").asText(), "node-1", 500, 9_000_000_000L);
    node.refuseWith = 503;
    chat(16, false).then().statusCode(503);
    String id = node.requests.getLast().path("request_id").asText();
    assertEquals(0L, ledgers.count("SELECT count(*) FROM charge WHERE request_id = ?1", id));
    // The node had the prompt: its attempt is charged its bound, no more; the request's own
    // reservation comes back.
    assertEquals(PROMPT + RUN_AHEAD, ledgers.releases(id + "/attempt-1", "bound"));
    assertEquals(
        0L, ledgers.count("SELECT count(*) FROM charge WHERE request_id LIKE ?1 || '%'", id));
    assertTrue(ledgers.releases(id, "refund") >= 0, "the request's own reservation came back");
  }

  @Test
  void aReportForARequestThatFailedOver_isRefused_andTheClientPaysTheServingNodesRelay()
      throws Exception {
    // node-1 reads each prompt and refuses with 503; node-2 serves.
    node.refuseWith = 503;
    try (FakeNode serving = new FakeNode()) {
      fixture.registerNode("node-2", serving.url(), List.of(), 4, serving.dispatchToken);
      String id = null;
      for (int i = 0; i < 12 && id == null; i++) {
        JsonPath answer = chat(16, false).then().statusCode(200).extract().jsonPath();
        String candidate = answer.getString("tensafe.request_id");
        boolean failedOver =
            node.requests.stream().anyMatch(r -> r.path("request_id").asText().equals(candidate));
        if (failedOver) {
          id = candidate;
        }
      }
      assertTrue(id != null, "no request was tried on the refusing node first");
      postJson(fixture.nodeToken(), "/api/node/usage", reportBody(id, "node-1", 900, 99))
          .then()
          .statusCode(409);
      assertEquals(List.of(PROMPT, 2L), ledgers.charged(id));
      assertEquals(PROMPT + RUN_AHEAD, ledgers.releases(id + "/attempt-1", "bound"));
      assertEquals(PROMPT + 1, ledgers.releases(id, "settle"));
    }
  }

  @Test
  void aStreamWhoseClientHungUp_isBilledWhatItRelayed_notTheNodesLaterReport() throws Exception {
    node.countToMaxTokens = true;
    node.delayMillis = 20;
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<java.io.InputStream> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + fixture.apiKey())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body(512, true)))
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    String id = response.headers().firstValue("X-Request-Id").orElseThrow();
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      int chunks = 0;
      for (String line = in.readLine(); line != null && chunks < 34; line = in.readLine()) {
        if (line.startsWith("data:") && line.contains("\"content\":\"w")) {
          chunks++;
        }
      }
    }
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (ledgers.count("SELECT count(*) FROM charge WHERE request_id = ?1", id) == 0
        && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    List<Long> billed = ledgers.charged(id);
    assertEquals("client_gone", ledgers.outcome(id));
    postJson(fixture.nodeToken(), "/api/node/usage", reportBody(id, "node-1", 512, 600))
        .then()
        .statusCode(201);
    assertEquals(billed, ledgers.charged(id));
    long relayed = single("SELECT delivered_completion_tokens FROM gateway_request", id);
    assertEquals(relayed, (long) billed.get(1));
    assertTrue(relayed < 512, "billed " + relayed + " of a 512-token claim");
    // The budget: the node's claim of 600 within what was read from it and the run-ahead.
    long read = single("SELECT relayed_completion_tokens FROM gateway_request", id);
    assertTrue(read >= relayed, "read " + read + ", relayed " + relayed);
    assertEquals(PROMPT + read + RUN_AHEAD, ledgers.releases(id, "settle"));
  }

  @Test
  void aReportForARequestWhoseGatewayDied_isBilledAtMostWhatTheGatewayRecordedAsRelayed() {
    String id = UUID.randomUUID().toString();
    // A gateway admitted, dispatched and relayed 3 tokens, then died.
    openLostRequest(id, 3);
    postJson(fixture.nodeToken(), "/api/node/usage", reportBody(id, "node-1", 16, 9_000_000L))
        .then()
        .statusCode(201);
    assertEquals(List.of(PROMPT, 3L), ledgers.charged(id));
    assertEquals("gateway_lost", ledgers.outcome(id));
    // Settled by the report, or to its bound by the sweep (every 0.2 s here) if it came first, and
    // the report's higher claim then moved nothing: the same figure either way.
    long settled = ledgers.releases(id, "settle");
    assertEquals(PROMPT + 3 + RUN_AHEAD, settled >= 0 ? settled : ledgers.releases(id, "bound"));
  }

  /**
   * Issue 51: a gateway that died before it recorded relaying anything. The node's report claims
   * the prompt and 16 tokens; the marketplace recorded nothing sent, so nothing is billed.
   */
  @Test
  void aReportForADeadGatewaysRequestThatRelayedNothing_billsNothing() {
    String id = UUID.randomUUID().toString();
    openLostRequest(id, -1);
    postJson(fixture.nodeToken(), "/api/node/usage", reportBody(id, "node-1", 16, 9_000_000L))
        .then()
        .statusCode(201);
    assertEquals("gateway_lost", ledgers.outcome(id));
    assertEquals(0L, ledgers.count("SELECT count(*) FROM charge WHERE request_id = ?1", id));
  }

  /**
   * Records request {@code id} as a gateway that then died would have left it: admitted, reserved,
   * {@code relayed} completion tokens recorded as relayed (none recorded when negative), and not
   * vouched for since 30 s ago.
   */
  private void openLostRequest(String id, int relayed) {
    UUID nodeId = nodeId("node-1");
    Object[] key =
        (Object[])
            em.createNativeQuery("SELECT organisation_id, id FROM api_key WHERE prefix = ?1")
                .setParameter(1, fixture.apiKey().substring(0, 16))
                .getSingleResult();
    QuarkusTransaction.requiringNew()
        .run(
            () -> {
              requests.open(
                  id,
                  new GatewayRequests.Context(
                      (UUID) key[0],
                      (UUID) key[1],
                      fixture.adapterId(),
                      "1.0.0",
                      null,
                      OffsetDateTime.now(ZoneOffset.UTC),
                      false,
                      new GatewayRequests.Limits(PROMPT, 16, (int) PROMPT)),
                  nodeId,
                  RequestMode.HOSTED);
              budgets.reserve(
                  (UUID) key[0], fixture.adapterId(), "1.0.0", id, PROMPT + 16, Instant.now());
            });
    if (relayed >= 0) {
      requests.relayed(id, relayed);
    }
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "UPDATE gateway_request SET active_at = now() - interval '30 seconds'"
                            + " WHERE request_id = CAST(?1 AS uuid)")
                    .setParameter(1, id)
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

  private void report(String requestId, String nodeName, int completion, long releases) {
    postJson(
        fixture.nodeToken(),
        "/api/node/usage",
        reportBody(requestId, nodeName, completion, releases));
  }

  private String reportBody(String requestId, String nodeName, int completion, long releases) {
    return """
        {"requestId":"%s","node":"%s","adapterId":"%s","adapterVersion":"1.0.0",
         "promptTokens":%d,"completionTokens":%d,"finishReason":"stop","dpReleases":%d,
         "dpNoiseMultiplier":50,"heCalls":24,"heEncryptions":28,"hePlaintextProducts":28,
         "heDecryptions":28,"heMillis":1.5,"totalMillis":3.0,
         "startedAt":"2026-11-22T10:00:00Z","finishedAt":"2026-11-22T10:00:01Z"}
        """
        .formatted(requestId, nodeName, fixture.adapterId(), PROMPT, completion, releases);
  }

  /** Waits until the request's reservation is closed; returns the releases it was closed at. */
  private long awaitClosed(String requestId) throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (System.nanoTime() < deadline) {
      long bound = ledgers.releases(requestId, "bound");
      long settle = ledgers.releases(requestId, "settle");
      if (settle >= 0) {
        return settle;
      }
      if (bound >= 0) {
        return bound;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("request " + requestId + " was never settled");
  }

  private long single(String select, String requestId) {
    Object v =
        em.createNativeQuery(select + " WHERE request_id = CAST(?1 AS uuid)")
            .setParameter(1, requestId)
            .getSingleResult();
    return v == null ? -1 : ((Number) v).longValue();
  }
}
