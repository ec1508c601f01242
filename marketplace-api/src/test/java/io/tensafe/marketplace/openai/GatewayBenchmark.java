package io.tensafe.marketplace.openai;

import static io.tensafe.marketplace.testing.Calls.postJson;

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
 * All four instants come from {@code System.nanoTime()} in one JVM. The node streams {@code
 * tensafe.bench.tokens} tokens (16) {@code tensafe.bench.token-ms} apart (20 ms, a brisk real
 * node), so a level of N clients keeps N streams open, as real traffic would; 0 makes the node
 * answer at once, which measures the gateway's saturation throughput instead. Each concurrency
 * level runs closed-loop clients (one request in flight each), started at random points of one
 * request's duration, for an unmeasured ramp-up of 2 s and then {@code tensafe.bench.seconds}. A
 * measurement, not a test: it asserts nothing about time, runs only with {@code
 * -Dtensafe.bench=true}, and prints one {@code BENCH} JSON line per level.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(GatewayBenchmark.Unthrottled.class)
@EnabledIfSystemProperty(named = "tensafe.bench", matches = "true")
class GatewayBenchmark {
  @jakarta.inject.Inject io.tensafe.marketplace.limits.Limits limits;
  @jakarta.inject.Inject io.tensafe.marketplace.tokens.PromptTokenizer tokenizer;

  static final int SECONDS = Integer.getInteger("tensafe.bench.seconds", 10);
  static final int TOKENS = Integer.getInteger("tensafe.bench.tokens", 16);
  static final int TOKEN_MILLIS = Integer.getInteger("tensafe.bench.token-ms", 20);
  static final int RAMP_UP_SECONDS = 2;
  static final int WARM_UP_SECONDS = Integer.getInteger("tensafe.bench.warm-up-seconds", 15);
  static final String LEVELS = System.getProperty("tensafe.bench.concurrency", "1,16,64");

  /** No per-key limit gets in the benchmark's way; the node has room for every client. */
  public static class Unthrottled implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.gateway.max-concurrency-per-key", "100000",
          "tensafe.gateway.requests-per-minute-per-key", "100000000",
          "tensafe.nodes.unproven-slots", "4096",
          "tensafe.limits.organisation-max-in-flight", "100000",
          "tensafe.limits.organisation-requests-per-minute", "100000000");
    }
  }

  /** One request as its client saw it; times in nanoseconds, or a failure. */
  record Sample(
      long addedNanos,
      long clientFirstByteNanos,
      long nodeFirstByteNanos,
      boolean ok,
      String error) {
    static Sample failed(String error) {
      return new Sample(0, 0, 0, false, error);
    }
  }

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
      // The node's heartbeat, as a real node sends it: without it the node is unhealthy after 30 s.
      var heartbeat = Executors.newSingleThreadScheduledExecutor();
      heartbeat.scheduleAtFixedRate(
          () ->
              postJson(
                  f.nodeToken(),
                  "/api/node/heartbeat",
                  "{\"name\":\"bench-node\",\"loadedAdapters\":[\"" + f.adapterId() + "\"]}"),
          5,
          5,
          java.util.concurrent.TimeUnit.SECONDS);
      HttpClient http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      // Warm-up: a real gateway has served many requests, so its hot paths are compiled; the node
      // answers at once here, so that a few thousand requests go through in a few seconds.
      node.delayMillis = 0;
      run(node, 4, WARM_UP_SECONDS, () -> once(http, f, node));
      node.delayMillis = TOKEN_MILLIS;
      try {
        for (int level : levels) {
          // One run: the gateway with the shared limits (the default), with each replica's own
          // in-memory limits, the same server relaying with no metering, and the node directly.
          // Shared, instance, instance, shared: drift over the run (the JIT, the tables' growth)
          // falls on both alike.
          List<Sample> gateway = new ArrayList<>();
          List<Sample> instance = new ArrayList<>();
          long cpuNanos = 0;
          RunQueue queue = new RunQueue();
          for (var scope :
              List.of(
                  io.tensafe.marketplace.limits.LimitsConfig.Scope.SHARED,
                  io.tensafe.marketplace.limits.LimitsConfig.Scope.INSTANCE,
                  io.tensafe.marketplace.limits.LimitsConfig.Scope.INSTANCE,
                  io.tensafe.marketplace.limits.LimitsConfig.Scope.SHARED)) {
            limits.use(scope);
            boolean shared = scope == io.tensafe.marketplace.limits.LimitsConfig.Scope.SHARED;
            java.util.Map<Long, Long> cpuBefore = shared ? MarketplaceCpu.snapshot() : null;
            if (shared) {
              queue.start();
            }
            (shared ? gateway : instance)
                .addAll(run(node, level, SECONDS, () -> once(http, f, node)));
            if (shared) {
              queue.stop();
              cpuNanos += MarketplaceCpu.since(cpuBefore);
            }
          }
          limits.use(io.tensafe.marketplace.limits.LimitsConfig.Scope.SHARED);
          double roundTrips = roundTripsPerRequest(node, level, () -> once(http, f, node));
          java.util.Map<Long, Long> passCpuBefore = MarketplaceCpu.snapshot();
          List<Sample> passThrough = run(node, level, SECONDS, () -> passThrough(http, node));
          long passCpuNanos = MarketplaceCpu.since(passCpuBefore);
          List<Sample> direct = run(node, level, SECONDS, () -> direct(http, node));
          report(level, gateway, instance, passThrough, direct, countingCost());
          // The costs beside the latencies (issue 51): the marketplace's CPU per request (its own
          // threads' CPU clocks over the shared-limit runs, ramp-ups included, so a slight
          // overcount), the database round trips per request (the driver's Sync messages over a
          // short run of its own, since logging them slows the driver), and the run queue.
          // The pass-through's CPU per request is the same server's floor without metering.
          long ran = gateway.stream().filter(Sample::ok).count();
          long passed = passThrough.stream().filter(Sample::ok).count();
          System.out.printf(
              Locale.ROOT,
              "BENCH {\"concurrency\":%d,\"marketplace_cpu_us_per_request\":%.1f,"
                  + "\"pass_through_cpu_us_per_request\":%.1f,"
                  + "\"db_round_trips_per_request\":%.2f,\"run_queue_mean\":%.2f,"
                  + "\"run_queue_max\":%d,\"cpus\":%d}%n",
              level,
              cpuNanos / 1e3 / Math.max(1, ran * (SECONDS + RAMP_UP_SECONDS) / (double) SECONDS),
              passCpuNanos
                  / 1e3
                  / Math.max(1, passed * (SECONDS + RAMP_UP_SECONDS) / (double) SECONDS),
              roundTrips,
              queue.mean(),
              queue.max(),
              Runtime.getRuntime().availableProcessors());
        }
      } finally {
        heartbeat.shutdownNow();
      }
    }
  }

  /**
   * CPU time of the marketplace's own threads (Quarkus's workers and Vert.x's event loops) in this
   * JVM, from their thread CPU clocks, per thread id: the harness's clients and the stand-in node
   * run on threads of other names. {@link #since} sums each thread's growth between two snapshots
   * (a thread born in between counts whole; one that ended in between is lost, an undercount).
   */
  static final class MarketplaceCpu {
    private MarketplaceCpu() {}

    static java.util.Map<Long, Long> snapshot() {
      java.lang.management.ThreadMXBean threads =
          java.lang.management.ManagementFactory.getThreadMXBean();
      java.util.Map<Long, Long> cpu = new java.util.HashMap<>();
      for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
        if (t == null) {
          continue;
        }
        String name = t.getThreadName();
        if (name.startsWith("executor-thread") || name.startsWith("vert.x-")) {
          long nanos = threads.getThreadCpuTime(t.getThreadId());
          if (nanos >= 0) {
            cpu.put(t.getThreadId(), nanos);
          }
        }
      }
      return cpu;
    }

    static long since(java.util.Map<Long, Long> before) {
      long total = 0;
      for (var e : snapshot().entrySet()) {
        total += Math.max(0, e.getValue() - before.getOrDefault(e.getKey(), 0L));
      }
      return total;
    }
  }

  /** Samples the machine's runnable tasks ({@code /proc/loadavg}'s fourth field) every 100 ms. */
  static final class RunQueue {
    private final List<Integer> samples = new java.util.concurrent.CopyOnWriteArrayList<>();
    private java.util.concurrent.ScheduledExecutorService sampler;

    void start() {
      sampler = Executors.newSingleThreadScheduledExecutor();
      sampler.scheduleAtFixedRate(
          () -> {
            try {
              String[] f =
                  java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                      .split("\\s+");
              samples.add(Integer.parseInt(f[3].split("/")[0]));
            } catch (java.io.IOException | RuntimeException e) {
              // no /proc here: no samples
            }
          },
          0,
          100,
          java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    void stop() {
      sampler.shutdownNow();
    }

    double mean() {
      return samples.stream().mapToInt(Integer::intValue).average().orElse(Double.NaN);
    }

    int max() {
      return samples.stream().mapToInt(Integer::intValue).max().orElse(-1);
    }
  }

  /**
   * The database round trips per request at {@code clients} concurrent clients: the PostgreSQL
   * driver's {@code Sync} messages (one per round trip) over a 3-second run, all threads, divided
   * by the requests it completed. Background work in that time (a heartbeat, lease renewals) counts
   * too: a slight overcount.
   */
  private static double roundTripsPerRequest(
      FakeNode node, int clients, java.util.function.Supplier<Sample> once) throws Exception {
    java.util.logging.Logger driver =
        java.util.logging.Logger.getLogger("org.postgresql.core.v3.QueryExecutorImpl");
    java.util.logging.Level before = driver.getLevel();
    java.util.concurrent.atomic.AtomicLong syncs = new java.util.concurrent.atomic.AtomicLong();
    java.util.logging.Handler counter =
        new java.util.logging.Handler() {
          @Override
          public void publish(java.util.logging.LogRecord r) {
            String m = r.getMessage();
            if (m != null && m.contains("FE=> Sync")) {
              syncs.incrementAndGet();
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    driver.addHandler(counter);
    driver.setLevel(java.util.logging.Level.FINEST);
    List<Sample> done;
    try {
      done = run(node, clients, 3, once);
    } finally {
      driver.removeHandler(counter);
      driver.setLevel(before);
    }
    long ok = done.stream().filter(Sample::ok).count();
    // run() measures after its ramp-up: scale the Syncs of ramp-up and run to the measured part.
    return syncs.get() * (3.0 / (3 + RAMP_UP_SECONDS)) / Math.max(1, ok);
  }

  /**
   * {@code clients} closed-loop clients, each starting at a random point of the first request's
   * duration (so they do not move in lock step), for a ramp-up of {@value #RAMP_UP_SECONDS} s that
   * is not measured, then {@code seconds} measured.
   */
  private static List<Sample> run(
      FakeNode node, int clients, int seconds, java.util.function.Supplier<Sample> once)
      throws Exception {
    long measureFrom = System.nanoTime() + RAMP_UP_SECONDS * 1_000_000_000L;
    long end = measureFrom + seconds * 1_000_000_000L;
    long spreadMillis = Math.max(1, (long) TOKENS * node.delayMillis);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<List<Sample>>> futures = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        long delay = new java.util.Random(c).nextLong(spreadMillis);
        futures.add(
            pool.submit(
                () -> {
                  Thread.sleep(delay);
                  List<Sample> mine = new ArrayList<>();
                  while (System.nanoTime() < end) {
                    boolean measured = System.nanoTime() >= measureFrom;
                    Sample sample = once.get();
                    if (measured) {
                      mine.add(sample);
                    }
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
    return timed(
        http,
        URI.create("http://localhost:" + RestAssured.port + "/v1/chat/completions"),
        f.apiKey(),
        "{\"model\":\""
            + f.adapterId()
            + "\",\"stream\":true,\"max_tokens\":"
            + TOKENS
            + ",\"messages\":[{\"role\":\"user\",\"content\":\"count\"}]}",
        "\"content\":\"w1 ",
        null,
        node);
  }

  /**
   * The same stream relayed by the same server with no metering ({@link PassThroughResource}): what
   * the gateway adds over it is what metering costs.
   */
  private static Sample passThrough(HttpClient http, FakeNode node) {
    String id = java.util.UUID.randomUUID().toString();
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create("http://localhost:" + RestAssured.port + "/bench/pass-through"))
            .header("X-Node-Url", node.url())
            .header("X-Node-Token", node.dispatchToken)
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(nodeBody(id)))
            .build();
    return timed(http, request, "\"delta\":\"w1 ", id, node);
  }

  private static String nodeBody(String requestId) {
    return "{\"request_id\":\""
        + requestId
        + "\",\"max_tokens\":"
        + TOKENS
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"count\"}]}";
  }

  /**
   * The same stream asked of the node directly, as the marketplace would: the harness's own share
   * of "added" (the client's HTTP stack and thread hand-offs on these shared cores), for context.
   */
  private static Sample direct(HttpClient http, FakeNode node) {
    String id = java.util.UUID.randomUUID().toString();
    return timed(
        http,
        URI.create(node.url() + "/v1/generate/stream"),
        node.dispatchToken,
        nodeBody(id),
        "\"delta\":\"w1 ",
        id,
        node);
  }

  /**
   * Streams one request and times it: the client's time to the line holding {@code firstText} minus
   * the node's time to its first delta. {@code requestId} null: the gateway's, from its {@code
   * X-Request-Id} header, and the stream must end with {@code [DONE]}.
   */
  private static Sample timed(
      HttpClient http,
      URI uri,
      String bearer,
      String body,
      String firstText,
      String requestId,
      FakeNode node) {
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .header("Authorization", "Bearer " + bearer)
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return timed(http, request, firstText, requestId, node);
  }

  private static Sample timed(
      HttpClient http, HttpRequest request, String firstText, String requestId, FakeNode node) {
    long sent = System.nanoTime();
    try {
      HttpResponse<Stream<String>> response =
          http.send(request, HttpResponse.BodyHandlers.ofLines());
      long firstContent = 0;
      boolean done = requestId != null;
      try (Stream<String> lines = response.body()) {
        for (String line : (Iterable<String>) lines::iterator) {
          if (firstContent == 0 && line.contains(firstText)) {
            firstContent = System.nanoTime();
          }
          done |= line.equals("data: [DONE]");
        }
      }
      String id =
          requestId != null ? requestId : response.headers().firstValue("X-Request-Id").orElse("");
      long[] nodeTimes = node.firstByteTimes.remove(id);
      if (response.statusCode() != 200 || !done || firstContent == 0 || nodeTimes == null) {
        return Sample.failed(
            response.statusCode() != 200 ? "http " + response.statusCode() : "cut");
      }
      long clientTtfb = firstContent - sent;
      long nodeTtfb = nodeTimes[1] - nodeTimes[0];
      return new Sample(clientTtfb - nodeTtfb, clientTtfb, nodeTtfb, true, null);
    } catch (Exception e) {
      return Sample.failed(e.getClass().getSimpleName());
    }
  }

  /**
   * What counting a request's relayed text costs the gateway (issue 34): the tokenizer over the
   * benchmark's completion ({@code TOKENS} pieces "w1 ", "w2 ", ... as the node streams them),
   * timed 2,000 times on the test's thread, as sorted nanoseconds. It runs once per request at its
   * end, and once more every 64 pieces of a longer stream.
   */
  private long[] countingCost() {
    StringBuilder text = new StringBuilder();
    for (int i = 1; i <= TOKENS; i++) {
      text.append('w').append(i).append(' ');
    }
    String relayed = text.toString();
    long[] nanos = new long[2000];
    for (int i = 0; i < nanos.length; i++) {
      long start = System.nanoTime();
      tokenizer.count(relayed);
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    return nanos;
  }

  private static long[] sorted(List<Sample> samples, java.util.function.ToLongFunction<Sample> f) {
    return samples.stream().filter(Sample::ok).mapToLong(f).sorted().toArray();
  }

  /**
   * One JSON line per level. The gateway ran twice with the shared limits and twice with each
   * replica's own ({@code samples}, {@code instance}: rates over both runs). {@code
   * metering_added_p50_ms}/{@code _p99_ms}: the gateway's added time minus the pass-through's at
   * that percentile; {@code shared_over_instance_requests}: the requests/s with the shared limits
   * over those with each replica's own; {@code relayed_count_p50_ms}/{@code _p99_ms}: counting a
   * request's relayed text ({@link #countingCost}).
   */
  private static void report(
      int concurrency,
      List<Sample> samples,
      List<Sample> instance,
      List<Sample> passThrough,
      List<Sample> direct,
      long[] counting) {
    long[] harness = sorted(direct, Sample::addedNanos);
    long[] added = sorted(samples, Sample::addedNanos);
    long[] addedInstance = sorted(instance, Sample::addedNanos);
    long[] relayed = sorted(passThrough, Sample::addedNanos);
    long[] client = sorted(samples, Sample::clientFirstByteNanos);
    long[] node = sorted(samples, Sample::nodeFirstByteNanos);
    System.out.printf(
        Locale.ROOT,
        "BENCH {\"concurrency\":%d,\"seconds\":%d,\"tokens_per_request\":%d,\"token_ms\":%d,"
            + "\"requests\":%d,"
            + "\"errors\":%d,\"requests_per_s\":%.1f,\"added_p50_ms\":%.2f,\"added_p99_ms\":%.2f,"
            + "\"client_first_byte_p50_ms\":%.2f,\"node_first_byte_p50_ms\":%.3f,"
            + "\"errors_by_kind\":\"%s\",\"direct_to_node_p50_ms\":%.2f,"
            + "\"direct_to_node_p99_ms\":%.2f,\"pass_through_requests_per_s\":%.1f,"
            + "\"pass_through_p50_ms\":%.2f,\"pass_through_p99_ms\":%.2f,"
            + "\"metering_added_p50_ms\":%.2f,\"metering_added_p99_ms\":%.2f,"
            + "\"instance_limits_requests_per_s\":%.1f,\"instance_limits_added_p50_ms\":%.2f,"
            + "\"instance_limits_errors\":%d,\"shared_over_instance_requests\":%.3f,"
            + "\"relayed_count_p50_ms\":%.4f,\"relayed_count_p99_ms\":%.4f}%n",
        concurrency,
        SECONDS,
        TOKENS,
        TOKEN_MILLIS,
        added.length,
        samples.size() - added.length,
        added.length / (2.0 * SECONDS),
        percentile(added, 0.50),
        percentile(added, 0.99),
        percentile(client, 0.50),
        percentile(node, 0.50),
        samples.stream()
            .filter(x -> !x.ok())
            .collect(
                java.util.stream.Collectors.groupingBy(
                    Sample::error, java.util.TreeMap::new, java.util.stream.Collectors.counting()))
            .toString(),
        percentile(harness, 0.50),
        percentile(harness, 0.99),
        relayed.length / (double) SECONDS,
        percentile(relayed, 0.50),
        percentile(relayed, 0.99),
        percentile(added, 0.50) - percentile(relayed, 0.50),
        percentile(added, 0.99) - percentile(relayed, 0.99),
        addedInstance.length / (2.0 * SECONDS),
        percentile(addedInstance, 0.50),
        instance.size() - addedInstance.length,
        added.length / (double) Math.max(1, addedInstance.length),
        percentile(counting, 0.50),
        percentile(counting, 0.99));
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
