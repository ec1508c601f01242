package io.tensafe.node.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tensafe.node.runtime.Generation;
import io.tensafe.node.runtime.LoraPath;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The node's Prometheus meters: tokens (rate them for tokens/s), generations by finish reason,
 * refusals, active generations (the queue depth; a full node refuses rather than queues), HE
 * milliseconds per generated token, and generation time. Gauges for held adapters and waiting usage
 * reports are registered by their owners through {@link #gauge}.
 */
@ApplicationScoped
public class NodeMetrics {
  private final MeterRegistry registry;
  private final AtomicInteger active = new AtomicInteger();
  private final Counter promptTokens;
  private final Counter completionTokens;
  private final Counter refused;
  private final DistributionSummary heSecondsPerToken;
  private final Timer generationTime;

  @Inject
  public NodeMetrics(MeterRegistry registry) {
    this.registry = registry;
    promptTokens = Counter.builder("tensafe_node_tokens").tag("kind", "prompt").register(registry);
    completionTokens =
        Counter.builder("tensafe_node_tokens").tag("kind", "completion").register(registry);
    refused =
        Counter.builder("tensafe_node_refused")
            .description("generations refused with 503 because every slot was busy")
            .register(registry);
    heSecondsPerToken =
        DistributionSummary.builder("tensafe_node_he_seconds_per_token")
            .description("HE-LoRA wall time per token run (prompt and completion), in seconds")
            .register(registry);
    generationTime = Timer.builder("tensafe_node_generation").register(registry);
    Gauge.builder("tensafe_node_active_generations", active, AtomicInteger::get)
        .description("generations running now")
        .register(registry);
  }

  /** Registers a gauge read from {@code value}. */
  public void gauge(String name, String description, Supplier<Number> value) {
    Gauge.builder(name, value).description(description).register(registry);
  }

  public void started() {
    active.incrementAndGet();
  }

  public void ended() {
    active.decrementAndGet();
  }

  public void refused() {
    refused.increment();
  }

  /** Records a finished (or cancelled) generation. */
  public void finished(Generation g, LoraPath lora, double totalMillis) {
    promptTokens.increment(g.promptTokens());
    completionTokens.increment(g.completionTokens());
    registry.counter("tensafe_node_generations", "finish_reason", g.finishReason()).increment();
    generationTime.record(Duration.ofNanos((long) (totalMillis * 1e6)));
    if (lora != null && g.completionTokens() > 0) {
      heSecondsPerToken.record(lora.heNanos() / 1e9 / (g.promptTokens() + g.completionTokens()));
    }
  }
}
