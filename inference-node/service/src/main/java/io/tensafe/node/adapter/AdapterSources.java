package io.tensafe.node.adapter;

import io.tensafe.node.config.FleetKeyFile;
import io.tensafe.node.config.NodeConfig;
import io.tensafe.node.marketplace.MarketplaceConnection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Chooses where adapters come from: the marketplace when the node is connected to one (then {@code
 * tensafe.node.fleet-key-file} is required), else {@code tensafe.node.adapter-dir} when set, else
 * nowhere (a request for an adapter is answered 404 with the reason).
 */
@ApplicationScoped
class AdapterSources {
  @Produces
  @Singleton
  AdapterSource source(MarketplaceConnection marketplace, NodeConfig config) {
    if (marketplace.client().isPresent()) {
      return new MarketplaceAdapterSource(
          marketplace.client().get(),
          config.name(),
          FleetKeyFile.read(config),
          config.adapterCache());
    }
    if (config.adapterDir().isPresent()) {
      return new LocalAdapterSource(config.adapterDir().get());
    }
    return new AdapterSource() {
      @Override
      public OpenedAdapter open(AdapterKey key) throws UnknownAdapterException {
        throw new UnknownAdapterException(
            "this node has no adapter source: connect it to a marketplace or set"
                + " tensafe.node.adapter-dir");
      }

      @Override
      public String describe() {
        return "none";
      }
    };
  }
}
