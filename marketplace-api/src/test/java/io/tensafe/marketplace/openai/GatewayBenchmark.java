package io.tensafe.marketplace.openai;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.RestAssured;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * {@code ./tensafe bench gateway}: what the metered gateway adds to a streamed request, through the
 * real HTTP stack, API-key check, step-gate-free routing, PostgreSQL ledgers (request record, DP
 * reservation, charge, settlement) and the proxy to a node. The node is {@link FakeNode}, in this
 * JVM, so the node's own time to its first byte is known exactly and subtracted:
 *
 * <pre>
 * added = (client's first content byte − client's send) − (node's first delta − node's receipt)
 * </pre>
 *
 * All four instants come from {@code System.nanoTime()} in one JVM. Each concurrency level runs
 * closed-loop clients (one request in flight each) for {@code tensafe.bench.seconds}. A
 * measurement, not a test: it asserts nothing about time, runs only with {@code
 * -Dtensafe.bench=true}, and prints one {@code BENCH} JSON line per level.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(GatewayBenchmark.Unthrottled.class)
@EnabledIfSystemProperty(named = "tensafe.bench", matches = "true")
class GatewayBenchmark {
  static final int SECONDS = Integer.getInteger("tensafe.bench.seconds", 10);
  static final int TOKENS = Integer.getInteger("tensafe.bench.tokens", 8);
  static final String LEVELS = System.getProperty("tensafe.bench.concurrency", "1,16,64");

  /** No per-key limit gets in the benchmark's way; the node has room for every client. */
  public static class Unthrottled implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.gateway.max-concurrency-per-key", "100000",
          "tensafe.gateway.requests-per-minute-per-key", "100000000");
    }
  }

  /** One request as its client saw it; times in nanoseconds, or a failure. */
  record Sample(long addedNanos, long clientFirstByteNanos, long nodeFirstByteNanos, boolean ok) {}

  @Test
  void measure() throws Exception {
    // Noise multiplier 1000 (the manifest maximum): the DP budget (ε 10) covers millions of
    // releases.
    GatewayFixture f = GatewayFixture.create("1000");
    int[] levels = Arrays.stream(LEVELS.split(",")).mapToInt(Integer::parseInt).toArray();
    int most = Arrays.stream(levels).max().orElse(1);
    try (FakeNode node = new FakeNode()) {
      node.countToMaxTokens = true;
      f.registerNode(
          "bench-node", node.url(), List.of(f.adapterId()), 4 * most, node.dispatchToken);
      HttpClient http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      run(http, f, node, 4, 3); // warm-up: JIT, connection pools
      for (int level : levels) {
        report(level, run(http, f, node, level, SECONDS));
      }
    }
  }

  private static List<Sample> run(
      HttpClient http, GatewayFixture f, FakeNode node, int clients, int seconds) throws Exception {
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<List<Sample>>> futures = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        futures.add(
            pool.submit(
                () -> {
                  List<Sample> mine = new ArrayList<>();
                  while (System.nanoTime() < end) {
                    mine.add(once(http, f, node));
                  }
                  return mine;
                }));
      }
      List<Sample> all = new ArrayList<>();
      for (Future<List<Sample>> future : futures) {
        all.addAll(future.get());
      }
      return all;
    } finally {
      pool.shutdownNow();
    }
  }

  private static Sample once(HttpClient http, GatewayFixture f, FakeNode node) {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create("http://localhost:" + RestAssured.port + "/v1/chat/completions"))
            .header("Authorization", "Bearer " + f.apiKey())
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(30))
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"model\":\""
                        + f.adapterId()
                        + "\",\"stream\":true,\"max_tokens\":"
                        + TOKENS
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"count\"}]}"))
            .build();
    long sent = System.nanoTime();
    try {
      HttpResponse<Stream<String>> response =
          http.send(request, HttpResponse.BodyHandlers.ofLines());
      long firstContent = 0;
      boolean done = false;
      try (Stream<String> lines = response.body()) {
        for (String line : (Iterable<String>) lines::iterator) {
          if (firstContent == 0 && line.contains("\"content\":\"w1 ")) {
            firstContent = System.nanoTime();
          }
          done |= line.equals("data: [DONE]");
        }
      }
      String id = response.headers().firstValue("X-Request-Id").orElse("");
      long[] nodeTimes = node.firstByteTimes.remove(id);
      if (response.statusCode() != 200 || !done || firstContent == 0 || nodeTimes == null) {
        return new Sample(0, 0, 0, false);
      }
      long clientTtfb = firstContent - sent;
      long nodeTtfb = nodeTimes[1] - nodeTimes[0];
      return new Sample(clientTtfb - nodeTtfb, clientTtfb, nodeTtfb, true);
    } catch (Exception e) {
      return new Sample(0, 0, 0, false);
    }
  }

  private static void report(int concurrency, List<Sample> samples) {
    long[] added =
        samples.stream().filter(Sample::ok).mapToLong(Sample::addedNanos).sorted().toArray();
    long[] client =
        samples.stream()
            .filter(Sample::ok)
            .mapToLong(Sample::clientFirstByteNanos)
            .sorted()
            .toArray();
    long[] node =
        samples.stream()
            .filter(Sample::ok)
            .mapToLong(Sample::nodeFirstByteNanos)
            .sorted()
            .toArray();
    System.out.printf(
        Locale.ROOT,
        "BENCH {\"concurrency\":%d,\"seconds\":%d,\"tokens_per_request\":%d,\"requests\":%d,"
            + "\"errors\":%d,\"requests_per_s\":%.1f,\"added_p50_ms\":%.2f,\"added_p99_ms\":%.2f,"
            + "\"client_first_byte_p50_ms\":%.2f,\"node_first_byte_p50_ms\":%.3f}%n",
        concurrency,
        SECONDS,
        TOKENS,
        added.length,
        samples.size() - added.length,
        added.length / (double) SECONDS,
        percentile(added, 0.50),
        percentile(added, 0.99),
        percentile(client, 0.50),
        percentile(node, 0.50));
  }

  /** The nearest-rank percentile of sorted nanoseconds, in milliseconds (NaN when empty). */
  private static double percentile(long[] sortedNanos, double p) {
    if (sortedNanos.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p * sortedNanos.length);
    return sortedNanos[Math.max(0, rank - 1)] / 1e6;
  }
}
