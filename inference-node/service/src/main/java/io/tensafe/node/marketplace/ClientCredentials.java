package io.tensafe.node.marketplace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * OAuth 2 client-credentials tokens from the identity provider's token endpoint (Keycloak's {@code
 * .../protocol/openid-connect/token}) for the node's confidential client, which holds the {@code
 * node} role. A token is reused until 30 s before it expires. Thread-safe.
 */
public final class ClientCredentials implements TokenSource {
  private final HttpClient http;
  private final URI tokenUrl;
  private final String clientId;
  private final String clientSecret;
  private final ObjectMapper json = new ObjectMapper();
  private String token;
  private Instant renewAt = Instant.MIN;

  public ClientCredentials(HttpClient http, URI tokenUrl, String clientId, String clientSecret) {
    this.http = http;
    this.tokenUrl = tokenUrl;
    this.clientId = clientId;
    this.clientSecret = clientSecret;
  }

  @Override
  public synchronized String token() throws IOException {
    if (token != null && Instant.now().isBefore(renewAt)) {
      return token;
    }
    String form =
        "grant_type=client_credentials&client_id="
            + URLEncoder.encode(clientId, StandardCharsets.UTF_8)
            + "&client_secret="
            + URLEncoder.encode(clientSecret, StandardCharsets.UTF_8);
    HttpRequest request =
        HttpRequest.newBuilder(tokenUrl)
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build();
    HttpResponse<String> response = MarketplaceClient.send(http, request);
    if (response.statusCode() != 200) {
      throw new IOException(
          "the token endpoint answered " + response.statusCode() + ": " + response.body());
    }
    JsonNode body = json.readTree(response.body());
    if (!body.hasNonNull("access_token")) {
      throw new IOException("the token endpoint's answer has no access_token");
    }
    token = body.get("access_token").asText();
    long lifetime = body.path("expires_in").asLong(60);
    renewAt = Instant.now().plusSeconds(Math.max(0, lifetime - 30));
    return token;
  }

  @Override
  public synchronized void invalidate() {
    token = null;
  }
}
