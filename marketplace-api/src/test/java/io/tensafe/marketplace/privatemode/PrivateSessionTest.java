package io.tensafe.marketplace.privatemode;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.gateway.RequestSweeper;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.SessionFrame;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Private sessions through the marketplace (ADR 0017, ADR 0024): metered from the frames it relays,
 * never from a party's word; bad, oversized, replayed, concurrent or off-plan frames refused
 * without losing the session; a node that dies or answers off its plan, a revoked key and a session
 * nobody ends billed once for what was served; a live session never swept, one ended elsewhere
 * refusing its next frame; bad openings refused before any node is called.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(PrivateSessionHarness.SmallFrames.class)
class PrivateSessionTest extends PrivateSessionHarness {
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
    sweeper.sweep();
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
    return lostCopyOf(live, "private", prompt, completion);
  }

  /**
   * A hosted stream another replica relayed when it died, for the same payer and version: its row
   * with the prompt counted and {@code relayed} completion tokens recorded, silent for an hour.
   */
  private String lostStreamOf(String live, int prompt, int relayed) {
    return lostCopyOf(live, "hosted", prompt, relayed);
  }

  /**
   * {@code live}'s row under a new id in {@code mode}, silent for an hour, with the counts its
   * replica wrote: a private session's served counts, or a hosted stream's counted prompt and
   * relayed completion.
   */
  private String lostCopyOf(String live, String mode, int prompt, int completion) {
    String lost = UUID.randomUUID().toString();
    boolean hosted = mode.equals("hosted");
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        """
                        INSERT INTO gateway_request (request_id, client_organisation_id,
                            api_key_id, adapter_ref, adapter_version, node_id, started_at,
                            max_prompt_tokens, max_completion_tokens, mode, served_prompt_tokens,
                            served_completion_tokens, prompt_tokens, relayed_completion_tokens,
                            active_at)
                        SELECT ?1, client_organisation_id, api_key_id, adapter_ref,
                            adapter_version, node_id, started_at, max_prompt_tokens,
                            max_completion_tokens, ?2, ?3, ?4, ?5, ?6, now() - interval '1 hour'
                        FROM gateway_request WHERE request_id = ?7
                        """)
                    .setParameter(1, UUID.fromString(lost))
                    .setParameter(2, mode)
                    .setParameter(3, hosted ? null : prompt)
                    .setParameter(4, hosted ? null : completion)
                    .setParameter(5, hosted ? prompt : null)
                    .setParameter(6, hosted ? completion : null)
                    .setParameter(7, UUID.fromString(live))
                    .executeUpdate());
    return lost;
  }

  /**
   * Issue 51: one sweep for both modes. A private session and a hosted stream whose replica died
   * are both ended as {@code gateway_lost} by the same sweep, each billed what its replica recorded
   * (the served counts, the counted prompt and the relayed completion); the session this replica
   * relays is vouched for by it and left alone.
   */
  @Test
  void oneSweep_endsTheLostRequestsOfBothModes_fromWhatTheirReplicaRecorded() {
    String id = open(8);
    step(id, 0, 2);
    String session = orphanOf(id, 2, 3);
    String stream = lostStreamOf(id, 5, 2);
    makeStale(id);
    RequestSweeper.Swept swept = sweeper.sweep();
    assertTrue(swept.lost() >= 2, "both lost requests ended: " + swept);
    assertEquals("gateway_lost", request(session)[1]);
    assertEquals(List.of(2L, 3L), charged(session));
    assertEquals("gateway_lost", request(stream)[1]);
    assertEquals(List.of(5L, 2L), charged(stream));
    assertEquals(null, request(id)[1], "a session this live replica relays is never lost");
    sweeper.sweep();
    assertEquals(List.of(2L, 3L), charged(session), "billed once");
    assertEquals(List.of(5L, 2L), charged(stream), "billed once");
  }

  /**
   * A lost request that cannot be billed (its version is gone from the catalogue) is retried at
   * every sweep without holding up the lost requests behind it.
   */
  @Test
  void aLostRequestThatCannotBeBilled_doesNotHoldUpTheOthers() {
    String id = open(8);
    step(id, 0, 2);
    String unbillable = orphanOf(id, 2, 1);
    String billable = orphanOf(id, 2, 2);
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "UPDATE gateway_request SET adapter_version = '0.0.0-missing',"
                            + " started_at = started_at - interval '1 hour' WHERE request_id = ?1")
                    .setParameter(1, UUID.fromString(unbillable))
                    .executeUpdate());
    sweeper.sweep();
    assertEquals(null, request(unbillable)[1], "left open, retried at the next sweep");
    assertEquals("gateway_lost", request(billable)[1]);
    assertEquals(List.of(2L, 2L), charged(billable));
  }

  @Test
  void aSessionWhoseMarketplaceDied_isBilledOnceBySweep_andOneThisReplicaRelaysIsNot() {
    String id = open(8);
    step(id, 0, 2);
    step(id, 1, 1);
    String orphan = orphanOf(id, 2, 2);
    makeStale(id);
    sweeper.sweep();
    assertEquals("gateway_lost", request(orphan)[1]);
    assertEquals(List.of(2L, 2L), charged(orphan));
    assertEquals(null, request(id)[1], "a session this live replica relays is never an orphan");
    step(id, 2, 1);
    close(id).then().statusCode(200).body("usage.completion_tokens", equalTo(3));
    assertEquals(List.of(2L, 3L), charged(id));
    sweeper.sweep();
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
      sweeper.sweep();
      assertEquals(null, request(id)[1], "ended during its prefill, after chunk " + chunk);
    }
    node.frameDelayMillis = 2500;
    long at = sequence;
    CompletableFuture<Integer> slow =
        CompletableFuture.supplyAsync(
            () -> send(id, frame(FrameKind.ROUND_ONE, at, 4, 8, 8)).statusCode());
    Thread.sleep(2200);
    sweeper.sweep();
    assertEquals(200, slow.get());
    assertEquals(null, request(id)[1], "ended while a frame was at the node");
    node.frameDelayMillis = 0;
    sequence++;
    send(id, frame(FrameKind.ROUND_TWO, sequence, 4, 8, 8)).then().statusCode(200);
    sequence++;
    Thread.sleep(1200);
    sweeper.sweep();
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
    io.tensafe.marketplace.gateway.Settlement.Served served =
        io.tensafe.marketplace.sql.Rows.single(
            em.createNativeQuery(
                    "SELECT request_id, client_organisation_id, api_key_id, adapter_ref,"
                        + " adapter_version, started_at, served_prompt_tokens,"
                        + " served_completion_tokens FROM gateway_request WHERE request_id = :r")
                .setParameter("r", UUID.fromString(id)),
            io.tensafe.marketplace.gateway.Settlement.Served.class);
    assertEquals(3, served.promptTokens());
    settlement.settle(served, io.tensafe.marketplace.gateway.RequestOutcome.CLIENT_GONE);
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
        .body("detail", containsString("exactly 65 bytes"));
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

  /**
   * The fleets' public keys a client wraps its frame keys to (ADR 0037): the registered fleet's,
   * exactly as its key file reads, behind the API key.
   */
  @Test
  void theFleetsKeys_areListedForClients() throws Exception {
    io.tensafe.tgsp.crypto.FleetPublicKey fleet = fixture.fleet().publicKey();
    String document =
        given()
            .header("Authorization", "Bearer " + fixture.apiKey())
            .get("/v1/private/fleets")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getString("data.find { it.key_id == '" + fleet.keyId() + "' }.public_key");
    assertEquals(
        fleet.keyId(),
        io.tensafe.tgsp.crypto.KeyFiles.parseFleetPublic(
                "listed", document.getBytes(java.nio.charset.StandardCharsets.UTF_8))
            .keyId());
    given().get("/v1/private/fleets").then().statusCode(401);
  }

  @Test
  void badOpenings_areRefusedBeforeAnyNodeIsCalled() {
    openSession(
            "{\"model\":\"auto\",\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\""
                + KEY
                + "\"]}")
        .then()
        .statusCode(400)
        .body("detail", containsString("not available in private mode"));
    openSession("{\"model\":\"" + fixture.adapterId() + "\",\"public_keys\":[\"" + KEY + "\"]}")
        .then()
        .statusCode(400)
        .body("detail", containsString("frame_key_wrap is required"));
    openSession(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\"***\"]}")
        .then()
        .statusCode(400);
    openSession(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"max_tokens\":0,\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\""
                + KEY
                + "\"]}")
        .then()
        .statusCode(400);
    openSession(
            "{\"model\":\"no-such-adapter\",\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\""
                + KEY
                + "\"]}")
        .then()
        .statusCode(404);
    given()
        .contentType("application/json")
        .body(
            "{\"model\":\"x\",\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\""
                + KEY
                + "\"]}")
        .post("/v1/private/sessions")
        .then()
        .statusCode(401);
    assertEquals(List.of(), node.opened);
    node.refuseOpenWith = 422;
    openSession(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\""
                + KEY
                + "\"]}")
        .then()
        .statusCode(422)
        .contentType("application/problem+json");
  }
}
