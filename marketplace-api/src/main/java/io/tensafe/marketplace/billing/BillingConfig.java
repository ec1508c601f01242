package io.tensafe.marketplace.billing;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How sales are split ({@code tensafe.billing.*}). */
@ConfigMapping(prefix = "tensafe.billing")
public interface BillingConfig {
  /** The platform's share of a sale in basis points (0 to 10 000) unless the adapter sets one. */
  @WithDefault("2500")
  int platformTakeBasisPoints();
}
