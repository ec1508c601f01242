package io.tensafe.marketplace.privatemode;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.response.Response;
import io.tensafe.marketplace.openai.GatewayFixture;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.session.FrameKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Private mode is its creator's choice, per version, with a per-organisation quota of private
 * tokens per period (issue 49): a version not offered refuses sessions before anything is taken;
 * sessions reserve {@code max_prompt_tokens + max_tokens} of the quota at admission, atomically,
 * and settle to the tokens they were billed when they end, whatever ends them.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(PrivateSessionHarness.SmallFrames.class)
class PrivateModeQuotaTest extends PrivateSessionHarness {
  private static final String PROBLEMS = "https://tensafe.io/problems/";

  private Response openFor(GatewayFixture f, int maxTokens, int maxPromptTokens) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + f.adapterId()
                + "\",\"max_tokens\":"
                + maxTokens
                + ",\"max_prompt_tokens\":"
                + maxPromptTokens
                + ",\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\""
                + KEY
                + "\"]}")
        .post("/v1/private/sessions");
  }

  /** The private tokens {@code adapterRef@1.0.0}'s quota rows hold now (reserved + settled). */
  private long tokensTaken(String adapterRef) {
    return ((Number)
            em.createNativeQuery(
                    "SELECT coalesce(sum(u.tokens_taken), 0) FROM private_token_use u"
                        + " JOIN adapter_version v ON v.id = u.adapter_version_id"
                        + " JOIN adapter a ON a.id = v.adapter_id WHERE a.adapter_ref = ?1")
                .setParameter(1, adapterRef)
                .getSingleResult())
        .longValue();
  }

  /** Requests recorded for {@code adapterRef}: refused sessions leave none. */
  private long requests(String adapterRef) {
    return ((Number)
            em.createNativeQuery("SELECT count(*) FROM gateway_request WHERE adapter_ref = ?1")
                .setParameter(1, adapterRef)
                .getSingleResult())
        .longValue();
  }

  /** DP reservations of {@code adapterRef}'s requests. */
  private long dpReservations(String adapterRef) {
    return ((Number)
            em.createNativeQuery(
                    "SELECT count(*) FROM dp_budget_event e JOIN gateway_request g"
                        + " ON g.request_id::text = e.request_id"
                        + " WHERE g.adapter_ref = ?1 AND e.kind = 'reserve'")
                .setParameter(1, adapterRef)
                .getSingleResult())
        .longValue();
  }

  /** Runs a whole session of {@code prompt} prompt and {@code completion} completion tokens. */
  private void use(String id, int prompt, int completion) {
    step(id, 0, prompt);
    for (int s = 1; s < completion; s++) {
      step(id, s, 1);
    }
    close(id)
        .then()
        .statusCode(200)
        .body("usage.prompt_tokens", equalTo(prompt))
        .body("usage.completion_tokens", equalTo(completion));
  }

  @Test
  void aVersionItsCreatorDoesNotOffer_refusesASession403_beforeAnythingIsTaken() throws Exception {
    // A new upload is not offered.
    GatewayFixture fresh = GatewayFixture.create();
    given()
        .auth()
        .oauth2(Actors.token("creator-" + fresh.suffix(), "creator"))
        .get("/api/creator/adapters/" + fresh.adapterId() + "/versions/1.0.0/private-mode")
        .then()
        .statusCode(200)
        .body("offered", equalTo(false));
    openFor(fresh, 4, 8)
        .then()
        .statusCode(403)
        .contentType("application/problem+json")
        .body("type", equalTo(PROBLEMS + "private-mode-not-offered"))
        .body("error.param", equalTo("model"))
        .body("detail", containsString(fresh.adapterId() + "@1.0.0"));
    // An offer withdrawn: refused likewise, no node called, no request, budget or quota taken.
    fixture
        .setPrivateMode(fixture.adapterId(), "{\"offered\":false}")
        .then()
        .statusCode(200)
        .body("offered", equalTo(false))
        .body("tokensPerPeriod", equalTo(1_000_000))
        .body("periodDays", equalTo(30));
    openFor(fixture, 4, 8)
        .then()
        .statusCode(403)
        .body("type", equalTo(PROBLEMS + "private-mode-not-offered"));
    assertEquals(List.of(), node.opened);
    assertEquals(0, requests(fixture.adapterId()) + requests(fresh.adapterId()));
    assertEquals(0, tokensTaken(fixture.adapterId()));
    // Offered again (the quota kept), it serves.
    fixture
        .setPrivateMode(fixture.adapterId(), "{\"offered\":true}")
        .then()
        .statusCode(400)
        .body("error.param", equalTo("tokensPerPeriod"));
    fixture.offerPrivateMode();
    openFor(fixture, 4, 8).then().statusCode(201);
    assertEquals(12, tokensTaken(fixture.adapterId()));
    // Shown to clients, in the catalogue and beside the model, and to the creator.
    given()
        .auth()
        .oauth2(Actors.token("client-" + fresh.suffix(), "client"))
        .queryParam("q", fixture.adapterId())
        .get("/api/catalog")
        .then()
        .statusCode(200)
        .body("items[0].privateMode.offered", equalTo(true))
        .body("items[0].privateMode.tokensPerPeriod", equalTo(1_000_000))
        .body("items[0].privateMode.periodDays", equalTo(30));
    given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .get("/v1/models/" + fixture.adapterId())
        .then()
        .statusCode(200)
        .body("tensafe.private_mode.offered", equalTo(true))
        .body("tensafe.private_mode.tokens_per_period", equalTo(1_000_000))
        .body("tensafe.private_mode.period_days", equalTo(30));
    given()
        .header("Authorization", "Bearer " + fresh.apiKey())
        .get("/v1/models/" + fresh.adapterId())
        .then()
        .statusCode(200)
        .body("tensafe.private_mode.offered", equalTo(false));
    // The change is the creator's own, validated by field, and audit-logged.
    fixture
        .setPrivateMode(
            fixture.adapterId(), "{\"offered\":true,\"tokensPerPeriod\":10,\"periodDays\":367}")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("periodDays"));
    fresh.setPrivateMode(fixture.adapterId(), "{\"offered\":false}").then().statusCode(404);
    assertEquals(
        3L,
        ((Number)
                em.createNativeQuery(
                        "SELECT count(*) FROM audit_log l JOIN adapter_version v"
                            + " ON v.id::text = l.target_id JOIN adapter a ON a.id = v.adapter_id"
                            + " WHERE a.adapter_ref = ?1 AND l.action = 'adapter-version.private-mode'")
                    .setParameter(1, fixture.adapterId())
                    .getSingleResult())
            .longValue(),
        "the harness's offer, the withdrawal and the offer again");
  }

  /**
   * A quota of 30 tokens: sessions reserve 12, 12 and 9 and use 9, 12 and 9, exactly 30 in all,
   * each admitted; the next, needing 2 tokens, is refused 429 and charged nothing.
   */
  @Test
  void sessionsUsingExactlyTheQuota_areAdmitted_andTheNextTokenIsRefused429_chargingNothing() {
    fixture.offerPrivateMode(fixture.adapterId(), 30, 30);
    String a = open(4, 8);
    assertEquals(12, tokensTaken(fixture.adapterId()), "reserved for 8 + 4");
    sequence = 0;
    use(a, 5, 4);
    assertEquals(9, tokensTaken(fixture.adapterId()), "settled to 5 + 4, 3 given back");
    String b = open(4, 8);
    sequence = 0;
    use(b, 8, 4);
    assertEquals(21, tokensTaken(fixture.adapterId()));
    String c = open(1, 8);
    assertEquals(30, tokensTaken(fixture.adapterId()), "reserved up to the quota exactly");
    sequence = 0;
    use(c, 8, 1);
    assertEquals(30, tokensTaken(fixture.adapterId()));
    assertEquals(3, requests(fixture.adapterId()));
    openFor(fixture, 1, 1)
        .then()
        .statusCode(429)
        .contentType("application/problem+json")
        .header("Retry-After", notNullValue())
        .body("type", equalTo(PROBLEMS + "private-token-quota-exhausted"))
        .body("error.type", equalTo("insufficient_quota"))
        .body("detail", containsString("30 tokens per 30 days; 0 are left"))
        .body("detail", containsString("period ends at"));
    assertEquals(30, tokensTaken(fixture.adapterId()), "nothing taken by the refused session");
    assertEquals(3, requests(fixture.adapterId()), "no request recorded for it");
    assertEquals(3, dpReservations(fixture.adapterId()), "no DP budget reserved for it");
    assertEquals(3, node.opened.size(), "no node called for it");
    assertEquals(List.of(8L, 1L), charged(c));
  }

  /**
   * While sessions in flight hold the quota, another is refused 429 private-token-quota-reserved;
   * one larger than a whole period's quota 422.
   */
  @Test
  void aSessionTheQuotaCannotCoverNow_is429_andOneItNeverCan_is422() {
    fixture.offerPrivateMode(fixture.adapterId(), 24, 1);
    open(4, 8);
    open(4, 8);
    openFor(fixture, 1, 1)
        .then()
        .statusCode(429)
        .header("Retry-After", equalTo("2"))
        .body("type", equalTo(PROBLEMS + "private-token-quota-reserved"))
        .body("detail", containsString("24 tokens per 1 day"))
        .body("detail", containsString("hold 24"));
    openFor(fixture, 20, 8)
        .then()
        .statusCode(422)
        .body("type", equalTo(PROBLEMS + "private-token-quota-too-small"))
        .body("error.param", equalTo("max_tokens"));
    assertEquals(24, tokensTaken(fixture.adapterId()));
    assertEquals(2, requests(fixture.adapterId()));
  }

  /** 8 clients open sessions of 12 tokens at once against a quota of 36: at most 3 get one. */
  @Test
  void concurrentOpens_neverExceedTheQuota() throws Exception {
    GatewayFixture wide = GatewayFixture.create();
    wide.registerNode("node-wide", node.url(), List.of(), 16, node.dispatchToken);
    wide.offerPrivateMode(wide.adapterId(), 36, 30);
    serve(wide.adapterId());
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Integer> statuses = new ArrayList<>();
    try {
      List<Callable<Integer>> opens = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        opens.add(() -> openFor(wide, 4, 8).statusCode());
      }
      for (Future<Integer> f : pool.invokeAll(opens)) {
        statuses.add(f.get());
      }
    } finally {
      pool.shutdownNow();
    }
    long admitted = statuses.stream().filter(s -> s == 201).count();
    assertTrue(admitted >= 1 && admitted <= 3, "admitted " + statuses);
    assertTrue(
        statuses.stream().allMatch(s -> s == 201 || s == 429 || s == 503), "answers " + statuses);
    assertEquals(12 * admitted, tokensTaken(wide.adapterId()), "answers " + statuses);
    assertEquals(admitted, requests(wide.adapterId()), "answers " + statuses);
    if (admitted < 3) {
      return; // some were refused for node or key capacity, which takes no quota either
    }
    assertEquals(5, statuses.stream().filter(s -> s == 429).count(), "answers " + statuses);
  }

  /**
   * A session no node answers gives back everything; so does one that ends idle without a frame;
   * one whose node dies is settled to what it served.
   */
  @Test
  void sessionsThatFailOrEndEarly_giveBackWhatTheyDidNotUse() throws Exception {
    fixture.offerPrivateMode(fixture.adapterId(), 100, 30);
    node.refuseOpenWith = 500;
    openFor(fixture, 4, 8).then().statusCode(503);
    assertEquals(1, requests(fixture.adapterId()), "admitted, then no node answered");
    assertEquals(0, tokensTaken(fixture.adapterId()), "the unserved session gave back its 12");
    node.refuseOpenWith = 0;
    String idle = open(10, 8);
    assertEquals(18, tokensTaken(fixture.adapterId()));
    Thread.sleep(1_200); // the profile's idle timeout is one second
    sweeper.sweep();
    assertEquals("client_gone", request(idle)[1]);
    assertEquals(0, tokensTaken(fixture.adapterId()), "the idle session served nothing");
    sequence = 0;
    String id = open(4, 8);
    step(id, 0, 5);
    node.dieOnFrame = true;
    send(id, frame(FrameKind.ROUND_ONE, sequence, 1, 1, 1)).then().statusCode(502);
    assertEquals(6, tokensTaken(fixture.adapterId()), "5 prompt + 1 completion served");
    Object[] settled =
        (Object[])
            em.createNativeQuery(
                    "SELECT count(*), sum(tokens_used), count(*) FILTER (WHERE settled_at IS NULL)"
                        + " FROM private_token_reservation WHERE request_id IN (SELECT request_id"
                        + " FROM gateway_request WHERE adapter_ref = ?1)")
                .setParameter(1, fixture.adapterId())
                .getSingleResult();
    assertEquals(3L, ((Number) settled[0]).longValue());
    assertEquals(6L, ((Number) settled[1]).longValue());
    assertEquals(0L, ((Number) settled[2]).longValue(), "every reservation settled");
  }
}
