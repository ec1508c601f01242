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

  /**
   * The requests a node is given at once before it has completed any in {@link #servedWindow()},
   * whatever it declares (ADR 0029). At most 4096, the most a node may declare.
   */
  @WithDefault("4")
  int unprovenSlots();

  /** One more slot for each this many requests the node completed in {@link #servedWindow()}. */
  @WithDefault("8")
  int completedPerSlot();

  /** How far back the completed requests that earn a node its slots count (1 minute to 1 day). */
  @WithDefault("PT10M")
  Duration servedWindow();
}
