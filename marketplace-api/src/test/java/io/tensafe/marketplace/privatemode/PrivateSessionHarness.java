package io.tensafe.marketplace.privatemode;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.restassured.response.Response;
import io.tensafe.marketplace.gateway.RequestSweeper;
import io.tensafe.marketplace.openai.GatewayFixture;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.SessionFrame;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the private-session tests share: a published adapter (one site, q_proj of layer 0) whose
 * creator offers private mode with a quota no test reaches (1,000,000 tokens per 30 days), a {@link
 * FakePrivateNode} that serves it (its plan listing the manifest's sites), an API key, and calls
 * that open sessions, send frames of the node's plan and read what the marketplace recorded.
 */
abstract class PrivateSessionHarness {
  /**
   * Frames of at most 64 KiB, a one-second idle timeout, and a request no replica vouched for in
   * two seconds lost.
   */
  public static class SmallFrames implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.gateway.max-frame-bytes", "65536",
          "tensafe.gateway.private-idle-timeout", "PT1S",
          "tensafe.gateway.lost-after", "PT2S");
    }
  }

  static final String KEY = Base64.getEncoder().encodeToString(new byte[] {1, 2, 3, 4});

  /**
   * A frame-key wrap as the client sends it: opaque to the marketplace, which checks only that it
   * is base64 within its limit and relays it (the fake node does not open it).
   */
  static final String WRAP = Base64.getEncoder().encodeToString(new byte[] {5, 6, 7, 8});

  @Inject EntityManager em;
  @Inject PrivateSessions sessions;
  @Inject RequestSweeper sweeper;
  @Inject PrivateSettlement settlement;

  FakePrivateNode node;
  GatewayFixture fixture;
  long sequence;

  @BeforeEach
  void aPublishedAdapterANodeAndAKey() throws Exception {
    node = new FakePrivateNode();
    fixture = GatewayFixture.create();
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
    fixture.offerPrivateMode();
    serve(fixture.adapterId());
    sequence = 0;
  }

  /** Has the node serve {@code adapterRef@1.0.0}, listing its manifest's sites. */
  void serve(String adapterRef) {
    node.serve(em, adapterRef);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  Response openSession(String body) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(body)
        .post("/v1/private/sessions");
  }

  String open(int maxTokens) {
    return open(maxTokens, 8);
  }

  String open(int maxTokens, int maxPromptTokens) {
    return openSession(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"max_tokens\":"
                + maxTokens
                + ",\"max_prompt_tokens\":"
                + maxPromptTokens
                + ",\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\""
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

  static byte[] frame(FrameKind kind, long seq, long step, int tokens, int count) {
    return frame(kind, seq, step, 0, tokens, count, 3);
  }

  /** A frame of {@code count} ciphertexts of {@code bytes} bytes each. */
  static byte[] frame(
      FrameKind kind, long seq, long step, int group, int tokens, int count, int bytes) {
    List<byte[]> cts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      cts.add(new byte[bytes]);
    }
    return new SessionFrame(kind, seq, step, group, tokens, cts).toBytes();
  }

  Response send(String id, byte[] frame) {
    return send(fixture, id, frame);
  }

  Response send(GatewayFixture f, String id, byte[] frame) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/octet-stream")
        .body(frame)
        .post("/v1/private/sessions/" + id + "/frames");
  }

  /** One step (both rounds of its one group, as planned); asserts the relay answered both. */
  void step(String id, long step, int tokens) {
    step(fixture, id, step, tokens);
  }

  void step(GatewayFixture f, String id, long step, int tokens) {
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

  Response close(String id) {
    return close(fixture, id);
  }

  Response close(GatewayFixture f, String id) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .delete("/v1/private/sessions/" + id);
  }

  Object[] request(String id) {
    return (Object[])
        em.createNativeQuery(
                "SELECT mode, outcome, delivered_prompt_tokens, delivered_completion_tokens"
                    + " FROM gateway_request WHERE request_id = ?1")
            .setParameter(1, UUID.fromString(id))
            .getSingleResult();
  }

  List<Long> charged(String id) {
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

  long releases(String id, String kind) {
    return eventSum("sum(releases)", id, kind).longValue();
  }

  /** The ρ of {@code id}'s DP budget events of {@code kind}, in millionths. */
  long rhoMillionths(String id, String kind) {
    return ((java.math.BigDecimal) eventSum("sum(rho) * 1000000", id, kind)).longValueExact();
  }

  /** {@code sum} over {@code id}'s DP budget events of {@code kind}, 0 when there are none. */
  private Number eventSum(String sum, String id, String kind) {
    return (Number)
        em.createNativeQuery(
                "SELECT coalesce("
                    + sum
                    + ", 0) FROM dp_budget_event WHERE request_id = ?1 AND kind = ?2")
            .setParameter(1, id)
            .setParameter(2, kind)
            .getSingleResult();
  }
}
