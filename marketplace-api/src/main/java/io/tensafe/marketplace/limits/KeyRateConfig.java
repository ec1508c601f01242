package io.tensafe.marketplace.limits;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * An API key's requests per minute, {@code tensafe.gateway.requests-per-minute-per-key}: named with
 * the gateway's settings, whose clients it limits, but declared here, beside {@link Limits}, the
 * one reader, so that this package depends on no other.
 */
@ConfigMapping(prefix = "tensafe.gateway")
public interface KeyRateConfig {
  /** Requests one API key may start per minute (≥ 1). */
  @WithDefault("600")
  int requestsPerMinutePerKey();
}
