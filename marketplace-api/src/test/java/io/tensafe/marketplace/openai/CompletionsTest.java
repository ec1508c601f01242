package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The metered OpenAI-compatible API against a stand-in node: routing, dispatch, billing. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(CompletionsTest.TwoPerKey.class)
class CompletionsTest {
  /** At most two requests in flight and 30 started per minute per API key. */
  public static class TwoPerKey implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.gateway.max-concurrency-per-key",
          "2",
          "tensafe.gateway.requests-per-minute-per-key",
          "30");
    }
  }

  @Inject EntityManager em;

  FakeNode node;
  GatewayFixture fixture;
  String adapterId;
  String keyword;
  String apiKey;
  String nodeToken;

  @BeforeEach
  void aPublishedAdapterANodeAndAKey() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
    adapterId = fixture.adapterId();
    keyword = fixture.keyword();
    apiKey = fixture.apiKey();
    nodeToken = fixture.nodeToken();
    register("node-1", node.url(), List.of());
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private void register(String name, String url, List<String> loaded) throws Exception {
    fixture.registerNode(name, url, loaded, 4, node.dispatchToken);
  }

  private io.restassured.response.Response chat(String body) {
    return given()
        .header("Authorization", "Bearer " + apiKey)
        .contentType("application/json")
        .body(body)
        .post("/v1/chat/completions");
  }

  private static String message(String model, String content, String extra) {
    return "{\"model\":\""
        + model
        + "\",\"messages\":[{\"role\":\"user\",\"content\":\""
        + content
        + "\"}],\"max_tokens\":16"
        + extra
        + "}";
  }

  private long charges(String requestId) {
    return ((Number)
            em.createNativeQuery("SELECT count(*) FROM charge WHERE request_id = :r")
                .setParameter("r", requestId)
                .getSingleResult())
        .longValue();
  }

  @Test
  void chat_isDispatchedBilledAndAnswered() {
    JsonPath answer =
        chat(message(adapterId, "How do I apply for a mortgage?", ""))
            .then()
            .statusCode(200)
            .body("object", equalTo("chat.completion"))
            .body("choices[0].message.content", equalTo("Hello"))
            .body("choices[0].finish_reason", equalTo("stop"))
            .body(
                "usage.total_tokens",
                equalTo(FakeNode.userPromptTokens("How do I apply for a mortgage?") + 2))
            .body("tensafe.adapter", equalTo(adapterId))
            .body("tensafe.node", equalTo("node-1"))
            .body("tensafe.he.calls", equalTo(24))
            .extract()
            .jsonPath();
    String requestId = answer.getString("tensafe.request_id");
    // The prompt's tokens (as the marketplace counts them) at 1500 and 2 completion tokens at 2000
    // micro-units per 1k tokens.
    int prompt = FakeNode.userPromptTokens("How do I apply for a mortgage?");
    long expected = Math.ceilDiv(prompt * 1500L + 2 * 2000, 1000);
    assertEquals(expected, answer.getLong("tensafe.amount_micros"));
    assertEquals(1, charges(requestId));
    JsonPath sent = JsonPath.from(node.requests.getLast().toString());
    assertEquals(adapterId + "@1.0.0", sent.getString("adapter"));
    assertEquals(requestId, sent.getString("request_id"));
    assertEquals(16, sent.getInt("max_tokens"));
    // The node is told the prompt's tokens as the marketplace counted them, which the budget was
    // reserved for (issue 34): it refuses a prompt it counts longer.
    assertEquals(prompt, sent.getLong("max_prompt_tokens"));
    // Reserved for (prompt + max_tokens) releases of its one LoRA input, settled to the node's
    // count: its prompt tokens and the first of its 2 generated tokens.
    assertEquals(
        List.of(prompt + 16L, prompt + 1L),
        List.of(releases(requestId, "reserve"), releases(requestId, "settle")));
    // The ε reported is the budget's after settlement, as the client's budget listing shows it.
    double listed =
        getAs(
                io.tensafe.marketplace.testing.Actors.token("client-" + fixture.suffix(), "client"),
                "/api/client/budgets")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getDouble("find { it.adapter == '" + adapterId + "' }.epsilonSpent");
    assertEquals(listed, answer.getDouble("tensafe.epsilon_spent"), 1e-9);
  }

  @Test
  void aBudgetSmallerThanOneRequest_is422NotRetryable_andNothingIsGenerated() throws Exception {
    // Noise multiplier 1.1 at ε 10, δ 1e-5 allows no release a period: no request ever fits, so
    // the answer is not a 429 the SDKs would retry.
    GatewayFixture tight = GatewayFixture.create("1.1");
    try (FakeNode other = new FakeNode()) {
      tight.registerNode("node-tight", other.url(), List.of(), 4, other.dispatchToken);
      given()
          .header("Authorization", "Bearer " + tight.apiKey())
          .contentType("application/json")
          .body(message(tight.adapterId(), "hi", ""))
          .post("/v1/chat/completions")
          .then()
          .statusCode(422)
          .contentType("application/problem+json")
          .body("type", containsString("privacy-budget-too-small"))
          .body("detail", containsString(tight.adapterId()))
          .body("detail", containsString("can never fit"));
      assertTrue(other.requests.isEmpty(), "nothing may be generated");
    }
  }

  @Test
  void stream_sendsOpenAiChunksUsageAndDone() {
    String events =
        chat(message(
                adapterId, "hi", ",\"stream\":true,\"stream_options\":{\"include_usage\":true}"))
            .then()
            .statusCode(200)
            .contentType(containsString("text/event-stream"))
            .extract()
            .asString();
    List<String> data =
        Arrays.stream(events.split("\n"))
            .filter(l -> l.startsWith("data: "))
            .map(l -> l.substring(6))
            .toList();
    assertEquals("[DONE]", data.getLast());
    assertEquals("assistant", JsonPath.from(data.get(0)).getString("choices[0].delta.role"));
    StringBuilder text = new StringBuilder();
    for (String d : data.subList(1, data.size() - 3)) {
      text.append(JsonPath.from(d).getString("choices[0].delta.content"));
    }
    assertEquals("Hello", text.toString());
    JsonPath end = JsonPath.from(data.get(data.size() - 3));
    assertEquals("stop", end.getString("choices[0].finish_reason"));
    JsonPath usage = JsonPath.from(data.get(data.size() - 2));
    assertEquals(FakeNode.userPromptTokens("hi") + 2, usage.getInt("usage.total_tokens"));
    assertEquals(1, charges(end.getString("tensafe.request_id")));
  }

  @Test
  void metrics_countOutcomesTokensAndTheFirstTokenLatency() {
    double completed = metric("tensafe_gateway_requests_total{outcome=\"completed\"");
    double refused = metric("tensafe_gateway_requests_total{outcome=\"refused_404\"");
    double tokens = metric("tensafe_gateway_completion_tokens_total");
    double firstTokens = metric("tensafe_gateway_first_token_seconds_count");
    chat(message(adapterId, "hi", ",\"stream\":true")).then().statusCode(200);
    chat(message("no-such-adapter", "hi", "")).then().statusCode(404);
    assertEquals(completed + 1, metric("tensafe_gateway_requests_total{outcome=\"completed\""));
    assertEquals(refused + 1, metric("tensafe_gateway_requests_total{outcome=\"refused_404\""));
    assertEquals(tokens + 2, metric("tensafe_gateway_completion_tokens_total"));
    assertEquals(firstTokens + 1, metric("tensafe_gateway_first_token_seconds_count"));
  }

  /** The value of the first /metrics sample whose line starts with {@code prefix}; 0 if none. */
  private static double metric(String prefix) {
    String text = given().get("/metrics").then().statusCode(200).extract().asString();
    return Arrays.stream(text.split("\n"))
        .filter(l -> l.startsWith(prefix))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElse(0);
  }

  @Test
  void auto_routesByKeyword_andRecordsWhy() {
    chat(message("auto", "Tell me about " + keyword + " please", ""))
        .then()
        .statusCode(200)
        .body("tensafe.adapter", equalTo(adapterId))
        .body("tensafe.route_reason", containsString(keyword));
  }

  @Test
  void aNodeWithAUrl_mustRegisterADispatchToken_andANodeRefusingOursIsFailedOver()
      throws Exception {
    fixture
        .register("node-2", node.url(), List.of(), 4, null)
        .then()
        .statusCode(400)
        .body("detail", containsString("dispatchToken"));
    // A node registered with a token the real node does not hold answers 401: never served.
    try (FakeNode other = new FakeNode()) {
      fixture.registerNode("node-0-other", other.url(), List.of(adapterId), 4, node.dispatchToken);
      chat(message(adapterId, "hi", ""))
          .then()
          .statusCode(200)
          .body("tensafe.node", equalTo("node-1"));
      assertTrue(other.requests.isEmpty());
    }
  }

  @Inject io.tensafe.marketplace.limits.Limits limits;

  private long count(String sql, Object param) {
    return num(em.createNativeQuery(sql).setParameter(1, param).getSingleResult());
  }

  @Test
  void aNodeWhoseEndpointTurnedUnusable_isSkipped_itsSlotGivenBack_andTheRequestRecordedOnTheNext()
      throws Exception {
    // The admission's one database call (V28) takes the slots of every node with room; the
    // gateway then skips a node whose endpoint it cannot use, as it did when it chose in Java.
    register("node-0-unusable", "http://127.0.0.1:9", List.of(adapterId));
    Object unusable =
        em.createNativeQuery(
                "SELECT u.id FROM node u JOIN node n ON n.fleet_id = u.fleet_id"
                    + " WHERE u.name = 'node-0-unusable' AND n.name = 'node-1' AND rtrim(n.endpoint, '/') = ?1")
            .setParameter(1, node.url())
            .getSingleResult();
    io.quarkus.narayana.jta.QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "UPDATE node SET endpoint = 'http://127.0.0.1:9/a-path' WHERE id = ?1")
                    .setParameter(1, unusable)
                    .executeUpdate());
    String requestId =
        chat(message(adapterId, "hi", ""))
            .then()
            .statusCode(200)
            .body("tensafe.node", equalTo("node-1"))
            .extract()
            .jsonPath()
            .getString("tensafe.request_id");
    assertEquals(
        1,
        count(
            "SELECT count(*) FROM gateway_request g JOIN node n ON n.id = g.node_id"
                + " WHERE g.request_id = CAST(?1 AS uuid) AND n.name = 'node-1'",
            requestId));
    assertEquals(0, count("SELECT count(*) FROM limit_lease WHERE subject = ?1", unusable));
  }

  @Test
  void withSlotsCountedInMemory_theNodesAreChosenFirst_andTheAdmissionIsOneCallStill() {
    limits.use(io.tensafe.marketplace.limits.LimitsConfig.Scope.INSTANCE);
    try {
      String requestId =
          chat(message(adapterId, "hi", ""))
              .then()
              .statusCode(200)
              .body("tensafe.node", equalTo("node-1"))
              .extract()
              .jsonPath()
              .getString("tensafe.request_id");
      assertEquals(1, charges(requestId));
      assertTrue(releases(requestId, "reserve") > 0);
    } finally {
      limits.use(io.tensafe.marketplace.limits.LimitsConfig.Scope.SHARED);
    }
  }

  @Test
  void aDeadNodeBeforeTheFirstToken_failsOverToAnother() throws Exception {
    register("node-0-dead", "http://127.0.0.1:9", List.of(adapterId));
    chat(message(adapterId, "hi", ""))
        .then()
        .statusCode(200)
        .body("tensafe.node", equalTo("node-1"));
  }

  @Test
  void everyNodeFailingBeforeItsFirstToken_is503WithRetryAfter() throws Exception {
    node.close();
    register("node-1", "http://127.0.0.1:9", List.of());
    chat(message(adapterId, "hi", ""))
        .then()
        .statusCode(503)
        .header("Retry-After", notNullValue())
        .contentType("application/problem+json");
  }

  @Test
  void aThirdConcurrentRequestOfOneKey_is429WithRetryAfter() throws Exception {
    node.delayMillis = 1500;
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<io.restassured.response.Response>> answers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        answers.add(pool.submit(() -> chat(message(adapterId, "hi", ""))));
      }
      List<Integer> statuses = new ArrayList<>();
      for (Future<io.restassured.response.Response> a : answers) {
        io.restassured.response.Response r = a.get();
        statuses.add(r.statusCode());
        if (r.statusCode() == 429) {
          assertEquals("1", r.header("Retry-After"));
        }
      }
      statuses.sort(null);
      assertEquals(List.of(200, 200, 429), statuses);
    } finally {
      pool.shutdown();
    }
    chat(message(adapterId, "hi", "")).then().statusCode(200);
  }

  @Test
  void aNodeDyingMidStream_givesTheClientACleanError_andBillsWhatItWasSent() {
    node.dieAfterFirstToken = true;
    chat(message(adapterId, "hi", ""))
        .then()
        .statusCode(502)
        .contentType("application/problem+json");
    String unanswered =
        em.createNativeQuery(
                "SELECT g.request_id::text FROM gateway_request g JOIN api_key k"
                    + " ON k.id = g.api_key_id WHERE k.prefix = :p")
            .setParameter("p", apiKey.substring(0, 16))
            .getSingleResult()
            .toString();
    io.restassured.response.Response streamed = chat(message(adapterId, "hi", ",\"stream\":true"));
    String events = streamed.then().statusCode(200).extract().asString();
    assertTrue(events.contains("\"error\""), events);
    assertTrue(!events.contains("[DONE]"), events);
    assertTrue(events.contains("\"Hel\""), events);
    String requestId = streamed.header("X-Request-Id");

    // The non-streamed client got nothing: no charge. The node took the request, so it may have
    // released prompt inputs: the reservation stays until its report settles it.
    assertEquals(List.of(0L, 0L, "node_failed"), endOf(unanswered));
    assertEquals(0, charges(unanswered));
    assertEquals(
        0L,
        num(
            em.createNativeQuery(
                    "SELECT count(*) FROM dp_budget_event WHERE request_id = :r"
                        + " AND kind IN ('refund', 'settle')")
                .setParameter("r", unanswered)
                .getSingleResult()));
    // The streamed client got "Hel", one token of a 5-token prompt: exactly that is billed.
    long hi = FakeNode.userPromptTokens("hi");
    assertEquals(List.of(hi, 1L, "node_failed"), endOf(requestId));
    Object[] charge =
        (Object[])
            em.createNativeQuery(
                    "SELECT prompt_tokens, completion_tokens FROM charge WHERE request_id = :r")
                .setParameter("r", requestId)
                .getSingleResult();
    assertEquals(List.of(hi, 1L), List.of(num(charge[0]), num(charge[1])));
    assertEquals(0L, releases(requestId, "settle"));

    // The node comes back and flushes its outbox, counting the token it made but never sent:
    // recorded, acknowledged, billed nothing more.
    for (int replay = 0; replay < 2; replay++) {
      postJson(nodeToken, "/api/node/usage", report(requestId, 2))
          .then()
          .statusCode(replay == 0 ? 201 : 200);
    }
    assertEquals(1, charges(requestId));
    assertEquals(
        1L,
        num(
            em.createNativeQuery("SELECT completion_tokens FROM charge WHERE request_id = :r")
                .setParameter("r", requestId)
                .getSingleResult()));
    // Its report settles the budget: 28 releases reported, more than its tokens imply, at most the
    // reservation (prompt + max_tokens 16).
    assertEquals(Math.min(28L, hi + 16), releases(requestId, "settle"));
  }

  private List<Object> endOf(String requestId) {
    Object[] row =
        (Object[])
            em.createNativeQuery(
                    "SELECT delivered_prompt_tokens, delivered_completion_tokens, outcome"
                        + " FROM gateway_request WHERE request_id = :r")
                .setParameter("r", java.util.UUID.fromString(requestId))
                .getSingleResult();
    return List.of(num(row[0]), num(row[1]), row[2].toString());
  }

  /** The releases of {@code requestId}'s event of {@code kind}; 0 when there is none. */
  private long releases(String requestId, String kind) {
    Object value =
        em.createNativeQuery(
                "SELECT sum(releases) FROM dp_budget_event WHERE request_id = :r AND kind = :k")
            .setParameter("r", requestId)
            .setParameter("k", kind)
            .getSingleResult();
    return value == null ? 0 : num(value);
  }

  private static long num(Object value) {
    return ((Number) value).longValue();
  }

  private String report(String requestId, int completionTokens) {
    return """
        {"requestId":"%s","node":"node-1","adapterId":"%s","adapterVersion":"1.0.0",
         "promptTokens":5,"completionTokens":%d,"finishReason":"stop","dpReleases":28,
         "dpNoiseMultiplier":50,"heCalls":24,"heEncryptions":28,"hePlaintextProducts":28,
         "heDecryptions":28,"heMillis":1.5,"totalMillis":3.0,
         "startedAt":"2026-11-22T10:00:00Z","finishedAt":"2026-11-22T10:00:01Z"}
        """
        .formatted(requestId, adapterId, completionTokens);
  }

  @Test
  void aClientThatLeavesBeforeTheFirstToken_paysForThePromptTheNodeRan() throws Exception {
    node.firstTokenDelayMillis = 1000;
    // A raw client: sends a streamed request and hangs up without reading the answer.
    String body = message(adapterId, "hi", ",\"stream\":true");
    try (java.net.Socket socket =
        new java.net.Socket("127.0.0.1", io.restassured.RestAssured.port)) {
      socket
          .getOutputStream()
          .write(
              ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      + "Authorization: Bearer "
                      + apiKey
                      + "\r\nContent-Type: application/json\r\nContent-Length: "
                      + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                      + "\r\n\r\n"
                      + body)
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (node.requests.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    }
    String requestId = node.requests.getLast().path("request_id").asText();
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (!isEnded(requestId) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    // The node accepted the request: the gateway bills the prompt (as the marketplace counts it),
    // nothing else; the node's report of the cancelled generation bills nothing more.
    long prompt = FakeNode.userPromptTokens("hi");
    assertEquals(List.of(prompt, 0L, "client_gone"), endOf(requestId));
    assertEquals(1, charges(requestId));
    postJson(nodeToken, "/api/node/usage", report(requestId, 2)).then().statusCode(201);
    assertEquals(1, charges(requestId));
    Object[] charge =
        (Object[])
            em.createNativeQuery(
                    "SELECT prompt_tokens, completion_tokens FROM charge WHERE request_id = :r")
                .setParameter("r", requestId)
                .getSingleResult();
    assertEquals(
        List.of((long) FakeNode.userPromptTokens("hi"), 0L),
        List.of(num(charge[0]), num(charge[1])));
  }

  private boolean isEnded(String requestId) {
    return !em.createNativeQuery(
            "SELECT 1 FROM gateway_request WHERE request_id = :r AND ended_at IS NOT NULL")
        .setParameter("r", java.util.UUID.fromString(requestId))
        .getResultList()
        .isEmpty();
  }

  @Test
  void aKeyOverItsRequestRate_gets429WithRetryAfter_andNothingIsBilled() {
    // 30 per minute, a burst of 30: the allowance refills by one every 2 s while we spend it.
    int served = 0;
    io.restassured.response.Response refused = null;
    while (refused == null && served < 45) {
      io.restassured.response.Response r = chat(message(adapterId, "hi", ""));
      if (r.statusCode() == 200) {
        served++;
      } else {
        refused = r;
      }
    }
    assertTrue(served >= 30 && served < 45, "served " + served);
    refused
        .then()
        .statusCode(429)
        .contentType("application/problem+json")
        .body("detail", containsString("30 requests per minute"));
    int retryAfter = Integer.parseInt(refused.header("Retry-After"));
    assertTrue(retryAfter >= 1 && retryAfter <= 2, "Retry-After " + retryAfter);
    assertEquals(
        (long) served,
        num(
            em.createNativeQuery(
                    "SELECT count(*) FROM charge c JOIN api_key k ON k.id = c.api_key_id"
                        + " WHERE k.prefix = :p")
                .setParameter("p", apiKey.substring(0, 16))
                .getSingleResult()));
  }

  @Test
  void langChain4jsOpenAiClient_completesAndStreamsWithUsage() throws Exception {
    String baseUrl = "http://localhost:" + RestAssured.port + "/v1";
    OpenAiChatModel model =
        OpenAiChatModel.builder()
            .baseUrl(baseUrl)
            .apiKey(apiKey)
            .modelName(adapterId)
            .maxTokens(8)
            .build();
    ChatResponse answer =
        model.chat(ChatRequest.builder().messages(UserMessage.from("Hello")).build());
    assertEquals("Hello", answer.aiMessage().text());
    assertEquals(
        FakeNode.userPromptTokens("Hello") + 2, (int) answer.tokenUsage().totalTokenCount());

    OpenAiStreamingChatModel streaming =
        OpenAiStreamingChatModel.builder()
            .baseUrl(baseUrl)
            .apiKey(apiKey)
            .modelName(adapterId)
            .maxTokens(8)
            .build();
    CompletableFuture<ChatResponse> done = new CompletableFuture<>();
    StringBuilder parts = new StringBuilder();
    streaming.chat(
        "Hello",
        new StreamingChatResponseHandler() {
          @Override
          public void onPartialResponse(String partial) {
            parts.append(partial);
          }

          @Override
          public void onCompleteResponse(ChatResponse r) {
            done.complete(r);
          }

          @Override
          public void onError(Throwable error) {
            done.completeExceptionally(error);
          }
        });
    ChatResponse streamed = done.get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals("Hello", parts.toString());
    assertEquals(
        FakeNode.userPromptTokens("Hello") + 2, (int) streamed.tokenUsage().totalTokenCount());
  }

  @Test
  void badRequests_getProblemJson() {
    chat(message(adapterId, "hi", ",\"tools\":[{\"type\":\"function\"}]"))
        .then()
        .statusCode(400)
        .body("detail", containsString("tools"));
    chat(message(adapterId, "hi", ",\"n\":9")).then().statusCode(400);
    chat(message("no-such-model", "hi", "")).then().statusCode(404);
    chat("{\"model\":\"" + adapterId + "\",\"messages\":[]}").then().statusCode(400);
    chat(message(adapterId, "hi", ",\"temperature\":3")).then().statusCode(400);
    given()
        .contentType("application/json")
        .body(message(adapterId, "hi", ""))
        .post("/v1/chat/completions")
        .then()
        .statusCode(401);
  }

  @Test
  void theNodesUsageReport_replayedFiveTimes_doesNotChargeTwice() {
    String requestId =
        chat(message(adapterId, "hi", ""))
            .then()
            .statusCode(200)
            .extract()
            .path("tensafe.request_id");
    String report = report(requestId, 2);
    for (int replay = 0; replay < 5; replay++) {
      postJson(nodeToken, "/api/node/usage", report).then().statusCode(replay == 0 ? 201 : 200);
    }
    assertEquals(1, charges(requestId));
    assertTrue(requestId.length() == 36);
  }
}
