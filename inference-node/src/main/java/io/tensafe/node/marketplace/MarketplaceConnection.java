package io.tensafe.node.marketplace;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The node's connection to the marketplace, when {@code tensafe.node.marketplace.url} is set. Then
 * the token URL, client id and client secret of the node's Keycloak client are required, and a node
 * without them refuses to start. Unset: the node runs standalone (local adapters only, usage
 * reports kept in its outbox).
 */
@ApplicationScoped
public class MarketplaceConnection {
  @ConfigProperty(name = "tensafe.node.marketplace.url")
  Optional<URI> url;

  @ConfigProperty(name = "tensafe.node.marketplace.token-url")
  Optional<URI> tokenUrl;

  @ConfigProperty(name = "tensafe.node.marketplace.client-id")
  Optional<String> clientId;

  @ConfigProperty(name = "tensafe.node.marketplace.client-secret")
  Optional<String> clientSecret;

  private MarketplaceClient client;

  @PostConstruct
  void connect() {
    if (url.isEmpty()) {
      return;
    }
    if (tokenUrl.isEmpty() || clientId.isEmpty() || clientSecret.isEmpty()) {
      throw new IllegalStateException(
          "tensafe.node.marketplace.url is set, so tensafe.node.marketplace.token-url, client-id"
              + " and client-secret are required");
    }
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    client =
        new MarketplaceClient(
            http,
            url.get(),
            new ClientCredentials(http, tokenUrl.get(), clientId.get(), clientSecret.get()));
  }

  /** The client, or empty when the node runs standalone. */
  public Optional<MarketplaceClient> client() {
    return Optional.ofNullable(client);
  }
}
