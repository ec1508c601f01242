package io.tensafe.marketplace.autocap;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * The platform's default ceiling for {@code auto} ({@code tensafe.gateway.auto-cap.*}), which an
 * organisation has until one of its owners sets its own ({@link AutoPriceCaps}).
 */
@ConfigMapping(prefix = "tensafe.gateway.auto-cap")
public interface AutoCapConfig {
  /** ISO 4217; adapters priced in another currency are not routed to by default. */
  @WithDefault("USD")
  String currency();

  /** The highest prompt price {@code auto} routes to by default, micro-units per 1k tokens. */
  @WithDefault("50000")
  long promptMicrosPer1kTokens();

  /** The highest completion price {@code auto} routes to by default, micro-units per 1k tokens. */
  @WithDefault("50000")
  long completionMicrosPer1kTokens();

  /**
   * How long a replica keeps an organisation's ceiling before reading it again: a change made on
   * another replica applies there within this time (on this one, at once).
   */
  @WithDefault("PT10S")
  Duration rereadAfter();
}
