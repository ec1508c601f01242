package io.tensafe.marketplace.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Locale;

/**
 * The metered gateway's meters, scraped at {@code /metrics}:
 *
 * <ul>
 *   <li>{@code tensafe_gateway_requests_total{outcome}}: requests by how they ended: {@code
 *       completed}, {@code client_gone}, {@code node_failed} (dispatched), or {@code refused_NNN}
 *       (answered with status NNN before any node was called: rate limit, budget, no capacity...);
 *   <li>{@code tensafe_gateway_completion_tokens_total}: generated tokens delivered to clients;
 *   <li>{@code tensafe_gateway_first_token_seconds}: a histogram of the time from the request's
 *       arrival at the gateway to its first streamed token leaving it (streams only).
 * </ul>
 *
 * Thread-safe. Per marketplace instance, like every Prometheus meter.
 */
@ApplicationScoped
public class GatewayMetrics {
  private final MeterRegistry registry;
  private final Counter tokens;
  private final Timer firstToken;

  private static final Duration[] SLO_BOUNDS =
      java.util.stream.LongStream.of(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 30000)
          .mapToObj(Duration::ofMillis)
          .toArray(Duration[]::new);

  GatewayMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.tokens =
        Counter.builder("tensafe.gateway.completion.tokens")
            .description("generated tokens delivered to clients")
            .register(registry);
    this.firstToken =
        Timer.builder("tensafe.gateway.first.token")
            .description("time from a streamed request's arrival to its first token leaving")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofSeconds(30))
            // Fixed bounds too, so that every registry keeps bucket counts for figures().
            .serviceLevelObjectives(SLO_BOUNDS)
            .register(registry);
  }

  /** A dispatched request ended with {@code outcome}, having delivered {@code completionTokens}. */
  public void ended(RequestOutcome outcome, int completionTokens) {
    count(outcome.name().toLowerCase(Locale.ROOT));
    tokens.increment(Math.max(0, completionTokens));
  }

  /** A request answered with {@code status} before any node was called. */
  public void refused(int status) {
    count("refused_" + status);
  }

  /** A stream's first token left {@code nanos} after its request arrived. */
  public void firstToken(long nanos) {
    firstToken.record(Duration.ofNanos(nanos));
  }

  private void count(String outcome) {
    registry.counter("tensafe.gateway.requests", "outcome", outcome).increment();
  }

  /**
   * This instance's figures since it started.
   *
   * @param requestsByOutcome requests per outcome label (as in {@code
   *     tensafe_gateway_requests_total})
   * @param errorRate (node_failed + refused_5xx) / all requests, in [0, 1]; 0 with no requests
   * @param firstTokenP99Millis the histogram bucket bound at or above the 99th percentile of the
   *     first-token latency, in ms; NaN with no streams yet
   */
  public record Figures(
      java.util.Map<String, Long> requestsByOutcome,
      long completionTokens,
      long streams,
      double errorRate,
      double firstTokenP99Millis) {}

  /** A consistent-enough read of the meters (each meter is read once). */
  public Figures figures() {
    java.util.Map<String, Long> byOutcome = new java.util.TreeMap<>();
    long total = 0;
    long errors = 0;
    for (Counter c : registry.find("tensafe.gateway.requests").counters()) {
      String outcome = c.getId().getTag("outcome");
      long n = (long) c.count();
      byOutcome.merge(outcome, n, Long::sum);
      total += n;
      if (outcome.equals("node_failed") || outcome.startsWith("refused_5")) {
        errors += n;
      }
    }
    var snapshot = firstToken.takeSnapshot();
    double p99 = Double.NaN;
    if (snapshot.count() > 0) {
      double wanted = Math.ceil(0.99 * snapshot.count());
      for (var bucket : snapshot.histogramCounts()) {
        if (bucket.count() >= wanted) {
          p99 = bucket.bucket(java.util.concurrent.TimeUnit.MILLISECONDS);
          break;
        }
      }
    }
    return new Figures(
        java.util.Map.copyOf(byOutcome),
        (long) tokens.count(),
        snapshot.count(),
        total == 0 ? 0 : errors / (double) total,
        p99);
  }
}
