package io.tensafe.node.adapter;

import io.tensafe.node.marketplace.MarketplaceConnection;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.KeyFiles;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Chooses where adapters come from: the marketplace when the node is connected to one (then {@code
 * tensafe.node.fleet-key-file} is required), else {@code tensafe.node.adapter-dir} when set, else
 * nowhere (a request for an adapter is answered 404 with the reason).
 */
@ApplicationScoped
class AdapterSources {
  @Produces
  @Singleton
  AdapterSource source(
      MarketplaceConnection marketplace,
      @ConfigProperty(name = "tensafe.node.name") String node,
      @ConfigProperty(name = "tensafe.node.fleet-key-file") Optional<Path> fleetKeyFile,
      @ConfigProperty(name = "tensafe.node.adapter-cache") Path cache,
      @ConfigProperty(name = "tensafe.node.adapter-dir") Optional<Path> adapterDir) {
    if (marketplace.client().isPresent()) {
      Path keyFile =
          fleetKeyFile.orElseThrow(
              () ->
                  new IllegalStateException(
                      "a node connected to a marketplace needs tensafe.node.fleet-key-file"));
      try {
        return new MarketplaceAdapterSource(
            marketplace.client().get(), node, KeyFiles.readFleetPrivate(keyFile), cache);
      } catch (IOException | TgspException e) {
        throw new IllegalStateException("cannot read the fleet key " + keyFile + ": " + e, e);
      }
    }
    if (adapterDir.isPresent()) {
      return new LocalAdapterSource(adapterDir.get());
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
