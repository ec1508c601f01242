package io.tensafe.node.marketplace;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;

/**
 * The node's connection to the marketplace, when {@code tensafe.node.marketplace.url} is set. Then
 * the token URL, client id and client secret of the node's Keycloak client are required, and a node
 * without them refuses to start. Unset: the node runs standalone (local adapters only, usage
 * reports kept in its outbox).
 */
@ApplicationScoped
public class MarketplaceConnection {
  @Inject MarketplaceConfig config;

  private MarketplaceClient client;

  @PostConstruct
  void connect() {
    if (config.url().isEmpty()) {
      return;
    }
    if (config.tokenUrl().isEmpty()
        || config.clientId().isEmpty()
        || config.clientSecret().isEmpty()) {
      throw new IllegalStateException(
          "tensafe.node.marketplace.url is set, so tensafe.node.marketplace.token-url, client-id"
              + " and client-secret are required");
    }
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    client =
        new MarketplaceClient(
            http,
            config.url().get(),
            new ClientCredentials(
                http,
                config.tokenUrl().get(),
                config.clientId().get(),
                config.clientSecret().get()));
  }

  /** The client, or empty when the node runs standalone. */
  public Optional<MarketplaceClient> client() {
    return Optional.ofNullable(client);
  }
}
