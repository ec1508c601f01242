package io.tensafe.marketplace.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * A hundred streams at once, of random lengths, through the gateway: every token a client receives
 * is billed once, and nothing it did not receive is billed.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(ConcurrentStreamsTest.ManyPerKey.class)
class ConcurrentStreamsTest {
  static final int STREAMS = 100;

  /**
   * Room for all the streams on one key. Their admissions queue on one budget row, so on a slow
   * machine the last waits seconds for a connection: this test is about the ledger, so it waits
   * (what a client sees when the wait runs out is {@link DatabaseBusyTest}'s subject).
   */
  public static class ManyPerKey implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.gateway.max-concurrency-per-key",
          String.valueOf(STREAMS),
          "quarkus.datasource.jdbc.acquisition-timeout",
          "60s",
          // The node is trusted with what it declares: its slots are not this test's subject.
          "tensafe.nodes.unproven-slots",
          "4096",
          // Nor the organisation's limits.
          "tensafe.limits.organisation-max-in-flight",
          String.valueOf(STREAMS));
    }
  }

  @Inject EntityManager em;

  /** What one client saw: its request id, the tokens in the chunks it read, the usage chunk. */
  record Seen(String requestId, int tokensReceived, int usageCompletionTokens, boolean done) {}

  @Test
  void aHundredConcurrentStreams_areBilledExactlyTheTokensDelivered() throws Exception {
    // z = 200: at ρ = 1/(2z²) per release (ADR 0035) the period holds about 500,000 releases, room
    // for every reservation of the hundred streams.
    GatewayFixture f = GatewayFixture.create("200");
    try (FakeNode node = new FakeNode()) {
      node.countToMaxTokens = true;
      node.delayMillis = 20;
      f.registerNode("node-1", node.url(), List.of(), 2 * STREAMS, node.dispatchToken);
      Random random = new Random(42);
      HttpClient http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      ExecutorService pool = Executors.newFixedThreadPool(STREAMS);
      CountDownLatch start = new CountDownLatch(1);
      List<CompletableFuture<Seen>> clients = new ArrayList<>();
      int requested = 0;
      try {
        for (int i = 0; i < STREAMS; i++) {
          int maxTokens = 1 + random.nextInt(30);
          requested += maxTokens;
          clients.add(
              CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      start.await();
                      return stream(http, f.apiKey(), f.adapterId(), maxTokens);
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  },
                  pool));
        }
        start.countDown();
        List<Seen> seen = new ArrayList<>();
        for (CompletableFuture<Seen> c : clients) {
          seen.add(c.get());
        }
        long delivered = 0;
        for (Seen s : seen) {
          assertTrue(s.done(), s.toString());
          assertEquals(s.tokensReceived(), s.usageCompletionTokens(), s.toString());
          assertEquals(s.tokensReceived(), chargedCompletionTokens(s.requestId()), s.toString());
          delivered += s.tokensReceived();
        }
        assertEquals(requested, delivered);
        // The ledger as a whole: one charge per stream, Σ charged = Σ delivered.
        Object[] totals =
            (Object[])
                em.createNativeQuery(
                        "SELECT count(*), sum(c.completion_tokens) FROM charge c JOIN api_key k"
                            + " ON k.id = c.api_key_id WHERE k.prefix = :p")
                    .setParameter("p", f.apiKey().substring(0, 16))
                    .getSingleResult();
        assertEquals(STREAMS, ((Number) totals[0]).intValue());
        assertEquals(delivered, ((Number) totals[1]).longValue());
        long settled =
            ((Number)
                    em.createNativeQuery(
                            "SELECT sum(e.releases) FROM dp_budget_event e JOIN gateway_request g"
                                + " ON g.request_id::text = e.request_id JOIN api_key k"
                                + " ON k.id = g.api_key_id WHERE k.prefix = :p"
                                + " AND e.kind = 'settle'")
                        .setParameter("p", f.apiKey().substring(0, 16))
                        .getSingleResult())
                .longValue();
        // Each stream's budget is settled to the releases its node made: its 5 prompt tokens and
        // all
        // but the last of its generated tokens, through the adapter's one LoRA input.
        assertEquals(delivered + STREAMS * (FakeNode.userPromptTokens("count") - 1L), settled);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static Seen stream(HttpClient http, String apiKey, String model, int maxTokens)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create("http://localhost:" + RestAssured.port + "/v1/chat/completions"))
            .header("Authorization", "Bearer " + apiKey)
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(60))
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"model\":\""
                        + model
                        + "\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                        + "\"max_tokens\":"
                        + maxTokens
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"count\"}]}"))
            .build();
    HttpResponse<java.util.stream.Stream<String>> response =
        http.send(request, HttpResponse.BodyHandlers.ofLines());
    assertEquals(200, response.statusCode());
    int tokens = 0;
    int usage = -1;
    boolean done = false;
    try (var lines = response.body()) {
      for (String line : (Iterable<String>) lines::iterator) {
        if (!line.startsWith("data: ")) {
          continue;
        }
        String data = line.substring(6);
        if (data.equals("[DONE]")) {
          done = true;
          continue;
        }
        JsonPath chunk = JsonPath.from(data);
        String content = chunk.getString("choices[0].delta.content");
        if (content != null && content.startsWith("w")) {
          tokens++;
        }
        if (chunk.get("usage") != null) {
          usage = chunk.getInt("usage.completion_tokens");
        }
      }
    }
    return new Seen(
        response.headers().firstValue("X-Request-Id").orElseThrow(), tokens, usage, done);
  }

  private long chargedCompletionTokens(String requestId) {
    return ((Number)
            em.createNativeQuery("SELECT completion_tokens FROM charge WHERE request_id = :r")
                .setParameter("r", requestId)
                .getSingleResult())
        .longValue();
  }
}
