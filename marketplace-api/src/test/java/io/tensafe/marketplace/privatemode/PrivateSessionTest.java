package io.tensafe.marketplace.privatemode;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.response.Response;
import io.tensafe.marketplace.openai.GatewayFixture;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.SessionFrame;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Private sessions through the marketplace (ADR 0017): metered from the frames it relays, never
 * from a party's word; bad, oversized, replayed or concurrent frames refused without losing the
 * session; a node that dies, a revoked key and a session nobody ends billed once for what was
 * served; a session the budget cannot cover refused before any node is called.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(PrivateSessionTest.SmallFrames.class)
class PrivateSessionTest {
  /** Frames of at most 64 KiB and a one-second idle timeout. */
  public static class SmallFrames implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.gateway.max-frame-bytes", "65536",
          "tensafe.gateway.private-idle-timeout", "PT1S");
    }
  }

  private static final String KEY = Base64.getEncoder().encodeToString(new byte[] {1, 2, 3, 4});

  @Inject EntityManager em;
  @Inject PrivateSessions sessions;
  @Inject SessionSweeper sweeper;

  FakePrivateNode node;
  GatewayFixture fixture;
  long sequence;

  @BeforeEach
  void aPublishedAdapterANodeAndAKey() throws Exception {
    node = new FakePrivateNode();
    fixture = GatewayFixture.create();
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
    sequence = 0;
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private Response openSession(String body) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(body)
        .post("/v1/private/sessions");
  }

  private String open(int maxTokens) {
    return openSession(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"max_tokens\":"
                + maxTokens
                + ",\"max_prompt_tokens\":8,\"public_keys\":[\""
                + KEY
                + "\"]}")
        .then()
        .statusCode(201)
        .body("model", equalTo(fixture.adapterId() + "@1.0.0"))
        .body("plan.groups[0].sites.size()", equalTo(3))
        .body("clip_norm", equalTo(1.5f))
        .extract()
        .path("id");
  }

  private static byte[] frame(FrameKind kind, long seq, long step, int tokens, int count) {
    List<byte[]> cts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      cts.add(new byte[] {1, 2, 3});
    }
    return new SessionFrame(kind, seq, step, 0, tokens, cts).toBytes();
  }

  private Response send(String id, byte[] frame) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/octet-stream")
        .body(frame)
        .post("/v1/private/sessions/" + id + "/frames");
  }

  /** One step (both rounds of its one group); asserts the relay answered both. */
  private void step(String id, long step, int tokens) {
    for (FrameKind kind : List.of(FrameKind.ROUND_ONE, FrameKind.ROUND_TWO)) {
      byte[] answer =
          send(
                  id,
                  frame(
                      kind,
                      sequence,
                      step,
                      tokens,
                      kind == FrameKind.ROUND_ONE ? tokens : 3 * tokens))
              .then()
              .statusCode(200)
              .contentType("application/octet-stream")
              .extract()
              .asByteArray();
      assertEquals(FrameKind.ANSWER.code(), answer[4], "an answer frame");
      sequence++;
    }
  }

  private Response close(String id) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .delete("/v1/private/sessions/" + id);
  }

  private Object[] request(String id) {
    return (Object[])
        em.createNativeQuery(
                "SELECT mode, outcome, delivered_prompt_tokens, delivered_completion_tokens"
                    + " FROM gateway_request WHERE request_id = ?1")
            .setParameter(1, UUID.fromString(id))
            .getSingleResult();
  }

  private List<Long> charged(String id) {
    List<?> rows =
        em.createNativeQuery(
                "SELECT prompt_tokens, completion_tokens FROM charge WHERE request_id = ?1")
            .setParameter(1, id)
            .getResultList();
    assertTrue(rows.size() <= 1, "one charge per session");
    if (rows.isEmpty()) {
      return List.of();
    }
    Object[] row = (Object[]) rows.getFirst();
    return List.of(((Number) row[0]).longValue(), ((Number) row[1]).longValue());
  }

  private long releases(String id, String kind) {
    Object v =
        em.createNativeQuery(
                "SELECT coalesce(sum(releases), 0) FROM dp_budget_event"
                    + " WHERE request_id = ?1 AND kind = ?2")
            .setParameter(1, id)
            .setParameter(2, kind)
            .getSingleResult();
    return ((Number) v).longValue();
  }

  @Test
  void aSession_isBilledFromTheFramesItRelayed_andItsBudgetSettledToThem() {
    String id = open(4);
    assertEquals(fixture.adapterId() + "@1.0.0", node.opened.getFirst().path("adapter").asText());
    assertEquals(3, node.opened.getFirst().path("max_decode_steps").asInt());
    step(id, 0, 5);
    for (int s = 1; s <= 3; s++) {
      step(id, s, 1);
    }
    // max_tokens 4: the prefill gives the first token, three decode steps the rest.
    send(id, frame(FrameKind.ROUND_ONE, sequence, 4, 1, 1))
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("max_tokens"));
    close(id)
        .then()
        .statusCode(200)
        .body("usage.prompt_tokens", equalTo(5))
        .body("usage.completion_tokens", equalTo(4))
        .body("tensafe.mode", equalTo("private"))
        .body("tensafe.currency", equalTo("USD"));
    assertEquals(List.of(5L, 4L), charged(id));
    Object[] r = request(id);
    assertEquals("private", r[0]);
    assertEquals("completed", r[1]);
    long perToken = releases(id, "reserve") / (8 + 4);
    assertTrue(perToken >= 1);
    assertEquals((5 + 4 - 1) * perToken, releases(id, "settle"));
    assertEquals(List.of(id), node.closed);
    close(id).then().statusCode(404);
    assertEquals(List.of(5L, 4L), charged(id), "billed once");
    // The client's invoice shows the mode.
    java.time.OffsetDateTime now = java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC);
    given()
        .auth()
        .oauth2(Actors.token("client-" + fixture.suffix(), "client"))
        .queryParam("from", now.minusHours(1).toString())
        .queryParam("to", now.plusHours(1).toString())
        .get("/api/client/reports/invoice")
        .then()
        .statusCode(200)
        .body(
            "lines.findAll { it.dimension == 'mode' }.key",
            org.hamcrest.Matchers.hasItem("private"));
  }

  @Test
  void aPrivatePrice_isWhatPrivateSessionsPay() {
    String creator = Actors.token("creator-" + fixture.suffix(), "creator");
    String prices = "/api/creator/adapters/" + fixture.adapterId() + "/versions/1.0.0/prices";
    io.tensafe.marketplace.testing.Calls.postJson(
            creator,
            prices,
            "{\"promptMicrosPer1kTokens\":1500,\"completionMicrosPer1kTokens\":2000,"
                + "\"privatePromptMicrosPer1kTokens\":1000}")
        .then()
        .statusCode(400)
        .body("detail", containsString("both"));
    io.tensafe.marketplace.testing.Calls.postJson(
            creator,
            prices,
            "{\"promptMicrosPer1kTokens\":1500,\"completionMicrosPer1kTokens\":2000,"
                + "\"privatePromptMicrosPer1kTokens\":1000,"
                + "\"privateCompletionMicrosPer1kTokens\":1200}")
        .then()
        .statusCode(201);
    String id = open(4);
    step(id, 0, 5);
    close(id).then().statusCode(200);
    Object[] price =
        (Object[])
            em.createNativeQuery(
                    "SELECT prompt_micros_per_1k_tokens, completion_micros_per_1k_tokens FROM"
                        + " charge WHERE request_id = ?1")
                .setParameter(1, id)
                .getSingleResult();
    assertEquals(
        List.of(1000L, 1200L),
        List.of(((Number) price[0]).longValue(), ((Number) price[1]).longValue()));
  }

  @Test
  void badReplayedOversizedAndConcurrentFrames_areRefused_andTheSessionGoesOn() throws Exception {
    String id = open(8);
    send(id, new byte[] {1, 2, 3}).then().statusCode(400).contentType("application/problem+json");
    send(id, frame(FrameKind.ROUND_TWO, 0, 0, 2, 2)).then().statusCode(400);
    step(id, 0, 2);
    send(id, frame(FrameKind.ROUND_ONE, 0, 0, 2, 2))
        .then()
        .statusCode(400)
        .body("detail", containsString("replayed"));
    byte[] huge = new byte[70_000];
    send(id, huge).then().statusCode(413).contentType("application/problem+json");
    node.refuseFramesWith = 400;
    send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1))
        .then()
        .statusCode(400)
        .body("detail", containsString("the session goes on"));
    node.refuseFramesWith = 0;
    node.frameDelayMillis = 1500;
    CompletableFuture<Integer> slow =
        CompletableFuture.supplyAsync(
            () -> send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1)).statusCode());
    Thread.sleep(400);
    send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1))
        .then()
        .statusCode(429)
        .header("Retry-After", equalTo("1"));
    assertEquals(200, slow.get());
    node.frameDelayMillis = 0;
    sequence++;
    close(id).then().statusCode(200).body("usage.completion_tokens", equalTo(2));
    // The refused decode frame was not counted; the one the node answered was.
    assertEquals(List.of(2L, 2L), charged(id));
  }

  @Test
  void aNodeThatDies_endsTheSession_billedForWhatItServed() {
    String id = open(8);
    step(id, 0, 3);
    node.dieOnFrame = true;
    send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1))
        .then()
        .statusCode(502)
        .contentType("application/problem+json")
        .body("detail", containsString("3 prompt and 1 completion"));
    assertEquals("node_failed", request(id)[1]);
    assertEquals(List.of(3L, 1L), charged(id));
    send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1)).then().statusCode(404);
    close(id).then().statusCode(404);
    assertEquals(List.of(3L, 1L), charged(id));
  }

  @Test
  void aRevokedKey_cannotSendFrames_andItsSessionIsBilledWhenItGoesIdle() throws Exception {
    String id = open(8);
    step(id, 0, 4);
    given()
        .auth()
        .oauth2(Actors.token("client-" + fixture.suffix(), "client"))
        .delete("/api/client/api-keys/" + fixture.apiKey().substring(0, 16))
        .then()
        .statusCode(204);
    send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1)).then().statusCode(401);
    Thread.sleep(1200);
    assertTrue(sessions.endIdle() >= 1);
    assertEquals("client_gone", request(id)[1]);
    assertEquals(List.of(4L, 1L), charged(id));
  }

  @Test
  void aSessionWhoseMarketplaceDied_isBilledOnceBySweep() {
    String id = open(8);
    step(id, 0, 2);
    step(id, 1, 1);
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "UPDATE gateway_request SET active_at = now() - interval '1 hour'"
                            + " WHERE request_id = ?1")
                    .setParameter(1, UUID.fromString(id))
                    .executeUpdate());
    assertTrue(sweeper.endOrphans() >= 1);
    assertEquals(List.of(2L, 2L), charged(id));
    // The instance that still holds it live ends it too: nothing more is billed.
    close(id).then().statusCode(200);
    assertEquals(List.of(2L, 2L), charged(id));
  }

  @Test
  void badOpenings_areRefusedBeforeAnyNodeIsCalled() {
    openSession("{\"model\":\"auto\",\"public_keys\":[\"" + KEY + "\"]}")
        .then()
        .statusCode(400)
        .body("detail", containsString("/v1/routing/candidates"));
    openSession("{\"model\":\"" + fixture.adapterId() + "\",\"public_keys\":[\"***\"]}")
        .then()
        .statusCode(400);
    openSession(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"max_tokens\":0,\"public_keys\":[\""
                + KEY
                + "\"]}")
        .then()
        .statusCode(400);
    openSession("{\"model\":\"no-such-adapter\",\"public_keys\":[\"" + KEY + "\"]}")
        .then()
        .statusCode(404);
    given()
        .contentType("application/json")
        .body("{\"model\":\"x\",\"public_keys\":[\"" + KEY + "\"]}")
        .post("/v1/private/sessions")
        .then()
        .statusCode(401);
    assertEquals(List.of(), node.opened);
    node.refuseOpenWith = 422;
    openSession("{\"model\":\"" + fixture.adapterId() + "\",\"public_keys\":[\"" + KEY + "\"]}")
        .then()
        .statusCode(422)
        .contentType("application/problem+json");
  }

  private Response openFor(GatewayFixture f, int maxPromptTokens) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + f.adapterId()
                + "\",\"max_tokens\":1,\"max_prompt_tokens\":"
                + maxPromptTokens
                + ",\"public_keys\":[\""
                + KEY
                + "\"]}")
        .post("/v1/private/sessions");
  }

  /**
   * Prompt bounds 2^k − 1 (with max_tokens 1, reservations of 2^k tokens) from k = 16 down: the
   * first that fits costs more than half the budget, so a second of the same size must wait (429);
   * the larger ones can never fit (422). No node is called for a refused session.
   */
  @Test
  void aSessionTheBudgetCannotCover_isRefused_429WhileOthersHoldIt_422WhenItNeverFits()
      throws Exception {
    GatewayFixture thin = GatewayFixture.create("3");
    thin.registerNode("node-thin", node.url(), List.of(), 4, node.dispatchToken);
    int k = 16;
    Response r = openFor(thin, (1 << k) - 1);
    r.then().statusCode(422).contentType("application/problem+json");
    while (r.statusCode() == 422 && k > 1) {
      k--;
      r = openFor(thin, (1 << k) - 1);
    }
    r.then().statusCode(201);
    assertEquals(1, node.opened.size());
    openFor(thin, (1 << k) - 1)
        .then()
        .statusCode(429)
        .contentType("application/problem+json")
        .header("Retry-After", org.hamcrest.Matchers.notNullValue());
    assertEquals(1, node.opened.size());
  }
}
