package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * OpenAI's {@code x-ratelimit-*-requests} headers on the completions endpoints (issue 36): what the
 * key's requests-per-minute bucket in PostgreSQL holds after each request, on answers, streams and
 * 429s alike; no {@code *-tokens} headers, as there is no limit on tokens per minute. The key may
 * start 30 requests per minute (a burst of 30, refilled by one every 2 s) and have 2 in flight.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(CompletionsTest.TwoPerKey.class)
class CompletionsRateLimitHeadersTest {
  @Inject EntityManager em;

  FakeNode node;
  GatewayFixture fixture;

  @BeforeEach
  void aPublishedAdapterANodeAndAKey() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private Response post(String path, String body) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(body)
        .post(path);
  }

  private Response chat(String extra) {
    return post(
        "/v1/chat/completions",
        "{\"model\":\""
            + fixture.adapterId()
            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4"
            + extra
            + "}");
  }

  /** The key's bucket now, refilled to this moment, as the database holds it. */
  private double bucket() {
    return ((Number)
            QuarkusTransaction.requiringNew()
                .call(
                    () ->
                        em.createNativeQuery(
                                "SELECT least(30, b.available + extract(epoch FROM"
                                    + " clock_timestamp() - b.refilled_at) * 30 / 60.0)"
                                    + " FROM rate_bucket b JOIN api_key k ON k.id = b.key_id"
                                    + " WHERE k.prefix = :p")
                            .setParameter("p", fixture.apiKey().substring(0, 16))
                            .getSingleResult()))
        .doubleValue();
  }

  /** Sets the key's bucket to {@code available} requests, refilled now. */
  private void setBucket(double available) {
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                assertEquals(
                    1,
                    em.createNativeQuery(
                            "UPDATE rate_bucket SET available = :a, refilled_at = clock_timestamp()"
                                + " WHERE key_id = (SELECT id FROM api_key WHERE prefix = :p)")
                        .setParameter("a", available)
                        .setParameter("p", fixture.apiKey().substring(0, 16))
                        .executeUpdate()));
  }

  private static int remaining(Response r) {
    return Integer.parseInt(r.header("x-ratelimit-remaining-requests"));
  }

  /** A reset header in milliseconds: OpenAI's "1.999s", "59.5s", "20ms", "1m0s". */
  static long millis(String duration) {
    var m = java.util.regex.Pattern.compile("(?:(\\d+)m)?(?:(\\d+(?:\\.\\d+)?)s)?(?:(\\d+)ms)?");
    var match = m.matcher(duration);
    assertTrue(match.matches() && !duration.isEmpty(), "a duration: " + duration);
    long ms = 0;
    if (match.group(1) != null) {
      ms += Long.parseLong(match.group(1)) * 60_000;
    }
    if (match.group(2) != null) {
      ms += new java.math.BigDecimal(match.group(2)).movePointRight(3).longValueExact();
    }
    if (match.group(3) != null) {
      ms += Long.parseLong(match.group(3));
    }
    return ms;
  }

  private static void assertNoTokenHeaders(Response r) {
    for (String h :
        List.of(
            "x-ratelimit-limit-tokens",
            "x-ratelimit-remaining-tokens",
            "x-ratelimit-reset-tokens")) {
      assertNull(r.header(h), h + ": there is no limit on tokens per minute");
    }
  }

  @Test
  void answers_carryTheKeysRequestsLimit_andRemainingDecreasesWithEachRequest() {
    Response first = chat("");
    first.then().statusCode(200);
    double afterFirst = bucket();
    assertEquals("30", first.header("x-ratelimit-limit-requests"));
    assertEquals(29, remaining(first), "a fresh key's burst of 30, less this request");
    assertTrue(afterFirst >= 29 && afterFirst < 30, "the bucket holds " + afterFirst);
    // Full again after one request's refill: 2 s, less what refilled since the draw.
    long reset = millis(first.header("x-ratelimit-reset-requests"));
    assertTrue(
        reset > 1500 && reset <= 2000, "reset " + first.header("x-ratelimit-reset-requests"));
    assertNoTokenHeaders(first);

    Response second =
        post(
            "/v1/completions",
            "{\"model\":\"" + fixture.adapterId() + "\",\"prompt\":\"hi\",\"max_tokens\":4}");
    second.then().statusCode(200);
    assertEquals("30", second.header("x-ratelimit-limit-requests"));
    assertEquals(28, remaining(second), "one request less, on /v1/completions too");
    long secondReset = millis(second.header("x-ratelimit-reset-requests"));
    assertTrue(secondReset > 3000 && secondReset <= 4000, "reset " + secondReset);
    assertNoTokenHeaders(second);
  }

  @Test
  void aStream_carriesTheHeaders_asTheRequestLeftTheBucket() {
    chat("").then().statusCode(200);
    setBucket(10.5);
    Response streamed = chat(",\"stream\":true");
    String events = streamed.then().statusCode(200).extract().asString();
    assertTrue(events.endsWith("data: [DONE]\n\n"), events);
    assertEquals("30", streamed.header("x-ratelimit-limit-requests"));
    assertEquals(9, remaining(streamed), "10.5 less this request: 9.5");
    // (30 - 9.5) requests at one per 2 s: 41 s, less what refilled since the draw.
    long reset = millis(streamed.header("x-ratelimit-reset-requests"));
    assertTrue(reset > 40_000 && reset <= 41_000, "reset " + reset);
    assertNoTokenHeaders(streamed);
  }

  @Test
  void aKeyOverItsRate_gets429s_thatCarryTheBucketItWasRefusedBy() {
    chat("").then().statusCode(200);
    setBucket(0.25);
    Response refused = chat("");
    refused.then().statusCode(429).contentType("application/problem+json");
    assertEquals("2", refused.header("Retry-After"), "0.75 of a request at one per 2 s: 1.5 s");
    assertEquals("30", refused.header("x-ratelimit-limit-requests"));
    assertEquals(0, remaining(refused));
    long reset = millis(refused.header("x-ratelimit-reset-requests"));
    assertTrue(reset > 59_000 && reset <= 59_500, "29.75 requests to refill: " + reset);
    assertNoTokenHeaders(refused);

    // Refused again before the database is asked (this replica knows the bucket is empty): the
    // level it was refused at, refilled since, which nothing else can have drawn from.
    Response again = chat("");
    again.then().statusCode(429);
    assertEquals(0, remaining(again));
    long resetAgain = millis(again.header("x-ratelimit-reset-requests"));
    assertTrue(resetAgain > 58_500 && resetAgain <= reset, "refilling: " + resetAgain);
    double level = bucket();
    assertTrue(level < 1, "the limiter still holds under one request: " + level);
  }

  @Test
  void aKeyWithEveryRequestInFlight_gets429s_withTheRequestsItHasLeft() throws Exception {
    chat("").then().statusCode(200); // the bucket now holds 29 and a bit
    node.delayMillis = 1500;
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<Response>> answers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        answers.add(pool.submit(() -> chat("")));
      }
      List<Integer> statuses = new ArrayList<>();
      for (Future<Response> a : answers) {
        Response r = a.get();
        statuses.add(r.statusCode());
        assertEquals("30", r.header("x-ratelimit-limit-requests"), "status " + r.statusCode());
        int left = remaining(r);
        assertTrue(left >= 26 && left <= 29, "status " + r.statusCode() + ": " + left + " left");
      }
      statuses.sort(null);
      assertEquals(List.of(200, 200, 429), statuses);
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void aRequestThatNeverReachedTheBucket_carriesNoHeaders() {
    Response malformed = post("/v1/chat/completions", "{\"model\":");
    malformed.then().statusCode(400);
    assertNull(malformed.header("x-ratelimit-limit-requests"));
    Response noKey =
        given()
            .contentType("application/json")
            .body("{\"model\":\"x\",\"prompt\":\"hi\"}")
            .post("/v1/completions");
    noKey.then().statusCode(401);
    assertNull(noKey.header("x-ratelimit-remaining-requests"));
  }
}
