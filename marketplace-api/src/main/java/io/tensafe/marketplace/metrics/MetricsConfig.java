package io.tensafe.marketplace.metrics;

import io.smallrye.config.ConfigMapping;
import java.util.Optional;

/** Who may scrape {@code /metrics} besides loopback callers ({@code tensafe.metrics.*}). */
@ConfigMapping(prefix = "tensafe.metrics")
public interface MetricsConfig {
  /** The bearer token that may scrape from other hosts; unset or empty: loopback only. */
  Optional<String> token();

  /**
   * Whether loopback callers may scrape without the token: true in the demo, false in the
   * production profile ({@link ScrapeAccess}).
   */
  @io.smallrye.config.WithDefault("true")
  boolean trustLoopback();
}
