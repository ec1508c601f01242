package io.tensafe.marketplace.openai;

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
            .register(registry);
  }

  /** A dispatched request ended with {@code outcome}, having delivered {@code completionTokens}. */
  void ended(RequestOutcome outcome, int completionTokens) {
    count(outcome.name().toLowerCase(Locale.ROOT));
    tokens.increment(Math.max(0, completionTokens));
  }

  /** A request answered with {@code status} before any node was called. */
  void refused(int status) {
    count("refused_" + status);
  }

  /** A stream's first token left {@code nanos} after its request arrived. */
  void firstToken(long nanos) {
    firstToken.record(Duration.ofNanos(nanos));
  }

  private void count(String outcome) {
    registry.counter("tensafe.gateway.requests", "outcome", outcome).increment();
  }
}
