package io.tensafe.marketplace.fleet;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.List;
import java.util.Optional;

/**
 * Which addresses the marketplace may send node requests to ({@code tensafe.nodes.addresses.*}, ADR
 * 0027). In the production profile only public addresses, and those in the networks an operator
 * allow-lists (for example the cluster's node network); elsewhere (the demo, the tests) any.
 */
@ConfigMapping(prefix = "tensafe.nodes.addresses")
public interface NodeAddressConfig {
  /**
   * Whether a node endpoint must resolve only to public addresses or allow-listed networks: on in
   * the production profile ({@code tensafe.production}), off in the demo and the tests.
   */
  @WithDefault("false")
  boolean publicOnly();

  /**
   * Networks, in CIDR notation ({@code 10.20.0.0/16}, {@code fd00::/8}), whose addresses a node
   * endpoint may resolve to although they are not public ({@code TENSAFE_NODE_NETWORKS}).
   */
  Optional<List<String>> allowedNetworks();
}
