package io.tensafe.node.marketplace;

import io.smallrye.config.ConfigMapping;
import java.net.URI;
import java.util.Optional;

/**
 * The marketplace link and the credential the node uses there ({@code tensafe.node.marketplace.*}):
 * all of it or none. Declared here, beside {@link MarketplaceConnection}, its one reader, so that
 * this package depends on no other node package. Empty values count as unset.
 */
@ConfigMapping(prefix = "tensafe.node.marketplace")
public interface MarketplaceConfig {
  /** The marketplace's base URL; unset runs the node standalone. */
  Optional<URI> url();

  /** The token endpoint of the node's Keycloak client (client credentials). */
  Optional<URI> tokenUrl();

  /** The node's client id there. */
  Optional<String> clientId();

  /** The node's client secret there. */
  Optional<String> clientSecret();
}
