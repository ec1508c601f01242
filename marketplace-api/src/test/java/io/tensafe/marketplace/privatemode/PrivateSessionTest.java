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
 * Private sessions through the marketplace (ADR 0017, ADR 0024): metered from the frames it relays,
 * never from a party's word; bad, oversized, replayed, concurrent or off-plan frames refused
 * without losing the session; a node that dies or answers off its plan, a revoked key and a session
 * nobody ends billed once for what was served; a live session never swept, one ended elsewhere
 * refusing its next frame; one private price for every token; ρ per noised site; a session the
 * budget cannot cover refused before any node is called.
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
  @Inject PrivateSettlement settlement;

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
    return open(maxTokens, 8);
  }

  private String open(int maxTokens, int maxPromptTokens) {
    return openSession(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"max_tokens\":"
                + maxTokens
                + ",\"max_prompt_tokens\":"
                + maxPromptTokens
                + ",\"public_keys\":[\""
                + KEY
                + "\"]}")
        .then()
        .statusCode(201)
        .body("model", equalTo(fixture.adapterId() + "@1.0.0"))
        .body("plan.groups[0].sites.size()", equalTo(1))
        .body("clip_norm", equalTo(1.5f))
        .extract()
        .path("id");
  }

  private static byte[] frame(FrameKind kind, long seq, long step, int tokens, int count) {
    return frame(kind, seq, step, 0, tokens, count, 3);
  }

  /** A frame of {@code count} ciphertexts of {@code bytes} bytes each. */
  private static byte[] frame(
      FrameKind kind, long seq, long step, int group, int tokens, int count, int bytes) {
    List<byte[]> cts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      cts.add(new byte[bytes]);
    }
    return new SessionFrame(kind, seq, step, group, tokens, cts).toBytes();
  }

  private Response send(String id, byte[] frame) {
    return send(fixture, id, frame);
  }

  private Response send(GatewayFixture f, String id, byte[] frame) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/octet-stream")
        .body(frame)
        .post("/v1/private/sessions/" + id + "/frames");
  }

  /** One step (both rounds of its one group, as planned); asserts the relay answered both. */
  private void step(String id, long step, int tokens) {
    step(fixture, id, step, tokens);
  }

  private void step(GatewayFixture f, String id, long step, int tokens) {
    FakePrivateNode.Plan plan = node.plan;
    for (FrameKind kind : List.of(FrameKind.ROUND_ONE, FrameKind.ROUND_TWO)) {
      int perToken =
          kind == FrameKind.ROUND_ONE ? plan.roundOneCiphertexts() : plan.roundTwoCiphertexts();
      byte[] answer =
          send(f, id, frame(kind, sequence, step, 0, tokens, perToken * tokens, plan.uploadBytes()))
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
    return close(fixture, id);
  }

  private Response close(GatewayFixture f, String id) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
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

  /** The prompt and completion prices and the amount of {@code id}'s charge. */
  private List<Long> chargedPrices(String id) {
    Object[] row =
        (Object[])
            em.createNativeQuery(
                    "SELECT prompt_micros_per_1k_tokens, completion_micros_per_1k_tokens,"
                        + " amount_micros FROM charge WHERE request_id = ?1")
                .setParameter(1, id)
                .getSingleResult();
    return List.of(
        ((Number) row[0]).longValue(),
        ((Number) row[1]).longValue(),
        ((Number) row[2]).longValue());
  }

  /**
   * A private session pays one price per 1k tokens for prompt and completion alike: the larger
   * hosted price (2000 here) while the creator sets none, then the private price; so a client that
   * sends generated tokens as prefill pays the same.
   */
  @Test
  void aPrivateSession_paysOnePricePer1kTokens_thePrivateOneElseTheLargerHostedOne() {
    String hosted = open(4);
    step(hosted, 0, 5);
    close(hosted).then().statusCode(200);
    // 5 prompt + 1 completion tokens at 2000 per 1k: 12 micro-units.
    assertEquals(List.of(2000L, 2000L, 12L), chargedPrices(hosted));
    io.tensafe.marketplace.testing.Calls.postJson(
            Actors.token("creator-" + fixture.suffix(), "creator"),
            "/api/creator/adapters/" + fixture.adapterId() + "/versions/1.0.0/prices",
            "{\"promptMicrosPer1kTokens\":1500,\"completionMicrosPer1kTokens\":2000,"
                + "\"privateMicrosPer1kTokens\":1200}")
        .then()
        .statusCode(201)
        .body("privateMicrosPer1kTokens", equalTo(1200));
    sequence = 0;
    String priced = open(4);
    step(priced, 0, 5);
    step(priced, 1, 1);
    close(priced).then().statusCode(200).body("tensafe.amount_micros", equalTo(8));
    // 5 prompt + 2 completion tokens at 1200 per 1k: 8.4, rounded to 8 micro-units.
    assertEquals(List.of(1200L, 1200L, 8L), chargedPrices(priced));
  }

  /** A key's price cap applies to the one private price, for prompt and completion alike. */
  @Test
  void aPrivatePriceAboveTheKeysCap_isRefused_asTheHostedOneIs() {
    String capped =
        io.tensafe.marketplace.testing.Calls.postJson(
                Actors.token("client-" + fixture.suffix(), "client"),
                "/api/client/api-keys",
                "{\"name\":\"capped\",\"maxPrice\":{\"currency\":\"USD\","
                    + "\"promptMicrosPer1kTokens\":1800,\"completionMicrosPer1kTokens\":5000}}")
            .then()
            .statusCode(201)
            .extract()
            .path("key");
    String body = "{\"model\":\"" + fixture.adapterId() + "\",\"public_keys\":[\"" + KEY + "\"]}";
    // The hosted prices (1500 / 2000) are within the cap; private sessions pay 2000 per token.
    given()
        .header("Authorization", "Bearer " + capped)
        .contentType("application/json")
        .body(body)
        .post("/v1/private/sessions")
        .then()
        .statusCode(422)
        .contentType("application/problem+json")
        .body("type", equalTo("https://tensafe.io/problems/price-above-cap"))
        .body("detail", containsString("2000 micro-units per 1k tokens"));
    assertEquals(List.of(), node.opened);
    io.tensafe.marketplace.testing.Calls.postJson(
            Actors.token("creator-" + fixture.suffix(), "creator"),
            "/api/creator/adapters/" + fixture.adapterId() + "/versions/1.0.0/prices",
            "{\"promptMicrosPer1kTokens\":1500,\"completionMicrosPer1kTokens\":2000,"
                + "\"privateMicrosPer1kTokens\":1700}")
        .then()
        .statusCode(201);
    given()
        .header("Authorization", "Bearer " + capped)
        .contentType("application/json")
        .body(body)
        .post("/v1/private/sessions")
        .then()
        .statusCode(201);
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
    sessions.endIdle();
    assertEquals("client_gone", request(id)[1]);
    assertEquals(List.of(4L, 1L), charged(id));
  }

  private void makeStale(String id) {
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "UPDATE gateway_request SET active_at = now() - interval '1 hour'"
                            + " WHERE request_id = ?1")
                    .setParameter(1, UUID.fromString(id))
                    .executeUpdate());
  }

  /**
   * A session another replica relayed when it died: its row, with the counts it wrote, silent for
   * an hour. Copied from {@code live}'s row under a new id.
   */
  private String orphanOf(String live, int prompt, int completion) {
    String orphan = UUID.randomUUID().toString();
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        """
                        INSERT INTO gateway_request (request_id, client_organisation_id,
                            api_key_id, adapter_ref, adapter_version, node_id, started_at,
                            max_prompt_tokens, max_completion_tokens, mode,
                            served_prompt_tokens, served_completion_tokens, active_at)
                        SELECT ?1, client_organisation_id, api_key_id, adapter_ref,
                            adapter_version, node_id, started_at, max_prompt_tokens,
                            max_completion_tokens, 'private', ?2, ?3, now() - interval '1 hour'
                        FROM gateway_request WHERE request_id = ?4
                        """)
                    .setParameter(1, UUID.fromString(orphan))
                    .setParameter(2, prompt)
                    .setParameter(3, completion)
                    .setParameter(4, UUID.fromString(live))
                    .executeUpdate());
    return orphan;
  }

  @Test
  void aSessionWhoseMarketplaceDied_isBilledOnceBySweep_andOneThisReplicaRelaysIsNot() {
    String id = open(8);
    step(id, 0, 2);
    step(id, 1, 1);
    String orphan = orphanOf(id, 2, 2);
    makeStale(id);
    sweeper.endOrphans();
    assertEquals("client_gone", request(orphan)[1]);
    assertEquals(List.of(2L, 2L), charged(orphan));
    assertEquals(null, request(id)[1], "a session this live replica relays is never an orphan");
    step(id, 2, 1);
    close(id).then().statusCode(200).body("usage.completion_tokens", equalTo(3));
    assertEquals(List.of(2L, 3L), charged(id));
    sweeper.endOrphans();
    assertEquals(List.of(2L, 2L), charged(orphan), "billed once");
  }

  /**
   * A prefill of many chunks and a slow node, each longer than twice the idle timeout (2 s here) in
   * all: the session stays live through every sweep, since each accepted frame marks it live and
   * the replica that relays it never takes it for an orphan; once idle it ends, and a frame after
   * the end is refused.
   */
  @Test
  void aLongPrefill_isNotSweptWhileLive_andAFrameAfterTheEndIsRefused() throws Exception {
    String id = open(4, 40);
    for (int chunk = 0; chunk < 4; chunk++) {
      step(id, chunk, 8);
      Thread.sleep(700);
      sessions.endIdle();
      sweeper.endOrphans();
      assertEquals(null, request(id)[1], "ended during its prefill, after chunk " + chunk);
    }
    node.frameDelayMillis = 2500;
    long at = sequence;
    CompletableFuture<Integer> slow =
        CompletableFuture.supplyAsync(
            () -> send(id, frame(FrameKind.ROUND_ONE, at, 4, 8, 8)).statusCode());
    Thread.sleep(2200);
    sessions.endIdle();
    sweeper.endOrphans();
    assertEquals(200, slow.get());
    assertEquals(null, request(id)[1], "ended while a frame was at the node");
    node.frameDelayMillis = 0;
    sequence++;
    send(id, frame(FrameKind.ROUND_TWO, sequence, 4, 8, 8)).then().statusCode(200);
    sequence++;
    Thread.sleep(1200);
    sessions.endIdle();
    assertEquals("client_gone", request(id)[1]);
    assertEquals(List.of(40L, 1L), charged(id));
    send(id, frame(FrameKind.ROUND_ONE, sequence, 5, 1, 1))
        .then()
        .statusCode(404)
        .contentType("application/problem+json");
  }

  /**
   * Another replica's sweep ended (and billed) a session this one still holds: its next frame is
   * refused, its answer withheld, and the session dropped here without a second bill.
   */
  @Test
  void aSessionEndedElsewhere_refusesItsNextFrame_andIsDroppedWithoutASecondBill() {
    String id = open(8);
    step(id, 0, 3);
    // What another replica's sweep settles: the row's payer, version and served counts.
    PrivateSettlement.Served served =
        io.tensafe.marketplace.sql.Rows.single(
            em.createNativeQuery(
                    "SELECT request_id, client_organisation_id, api_key_id, adapter_ref,"
                        + " adapter_version, started_at, served_prompt_tokens,"
                        + " served_completion_tokens FROM gateway_request WHERE request_id = :r")
                .setParameter("r", UUID.fromString(id)),
            PrivateSettlement.Served.class);
    assertEquals(3, served.promptTokens());
    settlement.settle(served, io.tensafe.marketplace.openai.RequestOutcome.CLIENT_GONE);
    send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1))
        .then()
        .statusCode(404)
        .contentType("application/problem+json");
    assertTrue(node.closed.contains(id), "closed on its node");
    send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1)).then().statusCode(404);
    close(id).then().statusCode(404);
    assertEquals(List.of(3L, 1L), charged(id));
  }

  /**
   * The plan's exact counts are the marketplace's to check: a frame of another count per token, of
   * a group outside the plan, or with a ciphertext of another length is refused (400) and never
   * reaches the node whole, and the session goes on; an answer of another count fails the round
   * (502) uncounted.
   */
  @Test
  void framesOffThePlan_areRefusedUnrelayed_andAnAnswerOffThePlanFailsTheRound() {
    String id = open(8);
    // Two ciphertexts per token where the plan has one: within FrameOrder's 1 to 16.
    send(id, frame(FrameKind.ROUND_ONE, 0, 0, 0, 2, 4, 3))
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("1 ciphertexts per token × 2 tokens = 2, not 4"));
    send(id, frame(FrameKind.ROUND_ONE, 0, 0, 1, 2, 2, 3))
        .then()
        .statusCode(400)
        .body("detail", containsString("not in the session's plan"));
    send(id, frame(FrameKind.ROUND_ONE, 0, 0, 0, 2, 2, 4))
        .then()
        .statusCode(400)
        .body("detail", containsString("exactly 33 bytes"));
    // The right total length, but ciphertexts of 2 and 4 bytes: caught as it streams.
    byte[] uneven =
        new SessionFrame(FrameKind.ROUND_ONE, 0, 0, 0, 2, List.of(new byte[2], new byte[4]))
            .toBytes();
    send(id, uneven)
        .then()
        .statusCode(400)
        .body("detail", containsString("ciphertext 0 declares 2 bytes"));
    assertEquals(List.of(), node.frames, "no frame reached the node whole");
    step(id, 0, 2);
    node.answerCiphertexts = 1;
    send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1))
        .then()
        .statusCode(502)
        .contentType("application/problem+json")
        .body("detail", containsString("2 prompt and 1 completion"));
    assertEquals("node_failed", request(id)[1]);
    assertEquals(List.of(2L, 1L), charged(id), "the round answered off plan is not counted");
  }

  private long rhoMillionths(String id, String kind) {
    Object v =
        em.createNativeQuery(
                "SELECT coalesce(sum(rho), 0) * 1000000 FROM dp_budget_event"
                    + " WHERE request_id = ?1 AND kind = ?2")
            .setParameter(1, id)
            .setParameter(2, kind)
            .getSingleResult();
    return ((java.math.BigDecimal) v).longValueExact();
  }

  /**
   * Private mode's DP cost is per noised site and token run, ρ = 1/(2z²) each: a version with q and
   * v adapted in two layers (4 sites, 2 hosted releases per token) at z = 50 reserves (8 + 4) × 4 ×
   * 1/5000 and settles, for 5 prompt tokens and 3 generated (7 tokens run), 7 × 4 × 1/5000.
   */
  @Test
  void theBudget_isChargedPerNoisedSiteAndTokenRun_atOneOverTwoZSquaredEach() throws Exception {
    GatewayFixture fourSites = GatewayFixture.create("50", 2, List.of("q_proj", "v_proj"));
    fourSites.registerNode("node-4", node.url(), List.of(), 4, node.dispatchToken);
    node.plan = new FakePrivateNode.Plan(1, 1, 1, 2, 1, 3, 4);
    String id =
        given()
            .header("Authorization", "Bearer " + fourSites.apiKey())
            .contentType("application/json")
            .body(
                "{\"model\":\""
                    + fourSites.adapterId()
                    + "\",\"max_tokens\":4,\"max_prompt_tokens\":8,\"public_keys\":[\""
                    + KEY
                    + "\"]}")
            .post("/v1/private/sessions")
            .then()
            .statusCode(201)
            .extract()
            .path("id");
    step(fourSites, id, 0, 5);
    step(fourSites, id, 1, 1);
    step(fourSites, id, 2, 1);
    close(fourSites, id).then().statusCode(200).body("usage.completion_tokens", equalTo(3));
    assertEquals(12 * 4, releases(id, "reserve"));
    assertEquals(7 * 4, releases(id, "settle"));
    // ρ in millionths: 48 / 5000 = 0.0096 and 28 / 5000 = 0.0056.
    assertEquals(9600, rhoMillionths(id, "reserve"));
    assertEquals(5600, rhoMillionths(id, "settle"));
  }

  /**
   * A node whose plan noises another number of sites than the version adapts (the number its budget
   * was reserved for) does not serve the session: it ends unserved, refunded, with 502.
   */
  @Test
  void aPlanThatNoisesOtherSites_endsTheSessionUnserved_andRefunded() {
    node.plan = new FakePrivateNode.Plan(1, 1, 1, 2, 1, 3, 2);
    openSession("{\"model\":\"" + fixture.adapterId() + "\",\"public_keys\":[\"" + KEY + "\"]}")
        .then()
        .statusCode(502)
        .contentType("application/problem+json")
        .body("detail", containsString("noises 2 sites per token"));
    String id = node.opened.getFirst().path("session_id").asText();
    assertEquals("node_failed", request(id)[1]);
    assertTrue(releases(id, "reserve") > 0);
    assertEquals(
        1,
        ((Number)
                em.createNativeQuery(
                        "SELECT count(*) FROM dp_budget_event WHERE request_id = ?1 AND kind = 'refund'")
                    .setParameter(1, id)
                    .getSingleResult())
            .intValue(),
        "refunded");
    assertEquals(List.of(), charged(id));
    assertEquals(List.of(id), node.closed);
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
