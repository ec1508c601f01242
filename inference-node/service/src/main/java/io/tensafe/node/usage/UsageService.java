package io.tensafe.node.usage;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.quarkus.logging.Log;
import io.quarkus.runtime.Startup;
import io.tensafe.node.config.NodeConfig;
import io.tensafe.node.marketplace.MarketplaceConnection;
import io.tensafe.node.metrics.NodeMetrics;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * Usage reports: every generation's report goes to the durable outbox ({@code
 * tensafe.node.outbox-dir}) before its last chunk is sent, and a background delivery sends the
 * outbox to the marketplace until each report is acknowledged, including reports left by an earlier
 * run of the node. A standalone node keeps its reports until it is connected.
 */
@Startup
@ApplicationScoped
public class UsageService {
  @Inject NodeConfig config;
  @Inject MarketplaceConnection marketplace;
  @Inject NodeMetrics metrics;

  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
  private UsageOutbox outbox;
  private UsageDelivery delivery;

  @PostConstruct
  void open() {
    try {
      outbox = new UsageOutbox(config.outboxDir());
      int waiting = outbox.pending().size();
      metrics.gauge(
          "tensafe_node_usage_reports_waiting",
          "usage reports in the outbox, not yet acknowledged",
          this::pending);
      if (marketplace.client().isPresent()) {
        var client = marketplace.client().get();
        delivery =
            new UsageDelivery(
                outbox,
                report -> UsageDelivery.Answer.of(client.postUsage(report)),
                Duration.ofSeconds(1),
                Duration.ofMinutes(1),
                Log::warn);
        delivery.start();
        Log.infof("usage outbox %s: %d report(s) waiting, delivering", config.outboxDir(), waiting);
      } else {
        Log.infof(
            "usage outbox %s: %d report(s) waiting; standalone node, kept until connected",
            config.outboxDir(), waiting);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the usage outbox " + config.outboxDir(), e);
    }
  }

  /** Stores {@code report} durably (then schedules its delivery). */
  public void record(UsageReport report) throws IOException {
    outbox.put(report.requestId(), json.writeValueAsBytes(report));
    if (delivery != null) {
      delivery.nudge();
    }
  }

  /** Reports waiting for acknowledgement. */
  public int pending() {
    try {
      return outbox.pending().size();
    } catch (IOException e) {
      return -1;
    }
  }

  @PreDestroy
  void close() {
    if (delivery != null) {
      delivery.close();
    }
  }
}
