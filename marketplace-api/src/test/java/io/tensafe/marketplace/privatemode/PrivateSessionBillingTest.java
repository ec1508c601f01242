package io.tensafe.marketplace.privatemode;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.response.Response;
import io.tensafe.marketplace.openai.GatewayFixture;
import io.tensafe.marketplace.testing.Actors;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What private sessions cost (ADR 0024): one price per 1k tokens, the private one else the larger
 * hosted one, within the key's cap; DP releases of ρ = 1/(2z²) per noised site and token run, the
 * node's plan held to the version's sites; a session the budget cannot cover refused before any
 * node is called.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(PrivateSessionHarness.SmallFrames.class)
class PrivateSessionBillingTest extends PrivateSessionHarness {
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
    String body =
        "{\"model\":\""
            + fixture.adapterId()
            + "\",\"frame_key_wrap\":\""
            + PrivateSessionHarness.WRAP
            + "\",\"public_keys\":[\""
            + KEY
            + "\"]}";
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

  /**
   * Private mode's DP cost is per noised site and token run, ρ = 1/(2z²) each: a version with q and
   * v adapted in two layers (4 sites, 2 hosted releases per token) at z = 50 reserves (8 + 4) × 4 ×
   * 1/5000 and settles, for 5 prompt tokens and 3 generated (7 tokens run), 7 × 4 × 1/5000.
   */
  @Test
  void theBudget_isChargedPerNoisedSiteAndTokenRun_atOneOverTwoZSquaredEach() throws Exception {
    GatewayFixture fourSites = GatewayFixture.create("50", 2, List.of("q_proj", "v_proj"));
    fourSites.registerNode("node-4", node.url(), List.of(), 4, node.dispatchToken);
    fourSites.offerPrivateMode();
    serve(fourSites.adapterId());
    String id =
        given()
            .header("Authorization", "Bearer " + fourSites.apiKey())
            .contentType("application/json")
            .body(
                "{\"model\":\""
                    + fourSites.adapterId()
                    + "\",\"max_tokens\":4,\"max_prompt_tokens\":8,\"frame_key_wrap\":\""
                    + PrivateSessionHarness.WRAP
                    + "\",\"public_keys\":[\""
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
    node.claimedSites = 2;
    openSession(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\""
                + KEY
                + "\"]}")
        .then()
        .statusCode(502)
        .contentType("application/problem+json")
        .body("detail", containsString("does not run each site"))
        .body("detail", not(containsString("noises 2 sites")));
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

  private Response openFor(GatewayFixture f, int maxPromptTokens) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + f.adapterId()
                + "\",\"max_tokens\":1,\"max_prompt_tokens\":"
                + maxPromptTokens
                + ",\"frame_key_wrap\":\""
                + PrivateSessionHarness.WRAP
                + "\",\"public_keys\":[\""
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
    thin.offerPrivateMode();
    serve(thin.adapterId());
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
