package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 51 (ADR 0038): what a node operator could still be paid or preferred for. Each test is an
 * attack that succeeded before the change: a node that answers {@code 200} and closes at once was
 * tried first forever and held each request's reservation until the report deadline; an empty
 * answer earned a slot; a node that stalled after its headers held the request's slots forever.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(LyingNodeTest.ShortDeadlines.class)
class NodeTricksTest {
  /** The prompt's tokens as the marketplace counts them (the adapter makes 1 release a token). */
  private static final long PROMPT = FakeNode.userPromptTokens("hi");

  private static final int RUN_AHEAD = 4;

  @Inject EntityManager em;

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

  private io.restassured.response.Response chat(boolean stream) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":16"
                + (stream ? ",\"stream\":true" : "")
                + "}")
        .post("/v1/chat/completions");
  }

  @Test
  void aNodeThatFailsFast_isTrippedAfterThree_andEachReservationIsSettledAtOnce() {
    node.fixedDeltas = List.of();
    node.dieAfterFixedDeltas = true; // 200 text/event-stream, then the connection closes
    for (int i = 1; i <= 3; i++) {
      chat(false).then().statusCode(502);
      String id = node.requests.getLast().path("request_id").asText();
      assertEquals("node_failed", ledgers.outcome(id));
      // Not held for the report deadline: settled to the bound of the prompt the node was sent.
      assertEquals(PROMPT + RUN_AHEAD, ledgers.releases(id, "bound"), "request " + i);
      assertEquals(0L, ledgers.count("SELECT count(*) FROM charge WHERE request_id = ?1", id));
    }
    Object[] breaker =
        (Object[])
            em.createNativeQuery(
                    "SELECT failure_streak, tripped_until > now() FROM node WHERE id = ?1")
                .setParameter(1, nodeId())
                .getSingleResult();
    assertEquals(3, ((Number) breaker[0]).intValue());
    assertEquals(Boolean.TRUE, breaker[1]);
    // Tripped: the next request is not sent to it; the fleet has no other node it could wait for,
    // so it is refused at once with 503.
    int before = node.requests.size();
    chat(false).then().statusCode(503);
    assertEquals(before, node.requests.size());

    // Once its time is out it is tried again, and each completed answer takes one failure off.
    io.quarkus.narayana.jta.QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery("UPDATE node SET tripped_until = now() WHERE id = ?1")
                    .setParameter(1, nodeId())
                    .executeUpdate());
    node.fixedDeltas = null;
    node.dieAfterFixedDeltas = false;
    chat(false).then().statusCode(200);
    assertEquals(
        2L,
        ((Number)
                em.createNativeQuery("SELECT failure_streak FROM node WHERE id = ?1")
                    .setParameter(1, nodeId())
                    .getSingleResult())
            .longValue());
  }

  @Test
  void anEmptyAnswer_earnsNoSlot_andBillsThePromptOnly() {
    node.fixedDeltas = List.of(); // only its final event, finish_reason stop
    JsonPath answer = chat(false).then().statusCode(200).extract().jsonPath();
    String id = answer.getString("tensafe.request_id");
    assertEquals("", answer.getString("choices[0].message.content"));
    assertEquals("empty", ledgers.outcome(id));
    assertEquals(List.of(PROMPT, 0L), ledgers.charged(id));
    assertEquals(
        0L,
        ledgers.count(
            "SELECT coalesce(sum(completed), 0) FROM node_served WHERE node_id = CAST(?1 AS uuid)",
            nodeId().toString()));
    // An answer with text does earn.
    node.fixedDeltas = null;
    chat(false).then().statusCode(200);
    assertEquals(
        1L,
        ledgers.count(
            "SELECT coalesce(sum(completed), 0) FROM node_served WHERE node_id = CAST(?1 AS uuid)",
            nodeId().toString()));
  }

  @Test
  void aNodeThatStallsAfterItsHeaders_isCutOffAtTheIdleTimeout_andGivesBackItsSlots() {
    // Comment lines every 100 ms for a minute: no event, so they do not keep the stream alive.
    node.stallAfterHeadersMillis = 60_000;
    long started = System.nanoTime();
    String streamed = chat(true).then().statusCode(200).extract().asString();
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
    assertTrue(seconds < 20, "the stall was cut after " + seconds + " s");
    assertTrue(streamed.contains("node-failed"), streamed);
    String id = node.requests.getLast().path("request_id").asText();
    assertEquals("node_failed", ledgers.outcome(id));
    assertEquals(
        0L,
        ledgers.count(
            "SELECT count(*) FROM limit_lease WHERE subject = CAST(?1 AS uuid)"
                + " AND expires_at > now()",
            nodeId().toString()));
    assertEquals(PROMPT + RUN_AHEAD, ledgers.releases(id, "bound"));
  }

  /**
   * A request that finds every slot held waits for one for the slot wait (a second here) and is
   * then refused with 429 and Retry-After, with nothing recorded as served or reserved.
   */
  @Test
  void aRequestThatFindsNoSlotWithinTheWait_is429WithRetryAfter() throws Exception {
    node.countToMaxTokens = true; // 16 tokens 800 ms apart: each holds its slot about 13 s
    node.delayMillis = 800;
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(4);
    List<java.util.concurrent.Future<Integer>> holders = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      holders.add(pool.submit(() -> chat(false).statusCode()));
    }
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (node.inFlight.get() < 4 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertEquals(4, node.inFlight.get(), "the four slots are held");
    long started = System.nanoTime();
    io.restassured.response.Response refused = chat(false);
    long waited = (System.nanoTime() - started) / 1_000_000L;
    assertEquals(429, refused.statusCode(), refused.asString());
    assertTrue(Integer.parseInt(refused.header("Retry-After")) >= 1);
    assertTrue(waited >= 900, "refused after " + waited + " ms, before the wait");
    assertTrue(refused.asString().contains("free slot"), refused.asString());
    for (var h : holders) {
      assertEquals(200, h.get());
    }
    pool.shutdown();
  }

  private UUID nodeId() {
    return (UUID)
        em.createNativeQuery(
                "SELECT n.id FROM node n JOIN node_fleet f ON f.id = n.fleet_id"
                    + " WHERE f.fleet_ref = ?1 AND n.name = 'node-1'")
            .setParameter(1, "fleet-" + fixture.suffix())
            .getSingleResult();
  }
}
