package io.tensafe.marketplace.fleet;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** How the marketplace judges its nodes ({@code tensafe.nodes.*}). */
@ConfigMapping(prefix = "tensafe.nodes")
public interface NodesConfig {
  /** A node without a heartbeat for this long takes no requests and shows unhealthy. */
  @WithDefault("PT30S")
  Duration heartbeatTimeout();
}
