package io.tensafe.marketplace.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1} has its own body limit (4 MiB), checked before the body is read or the key is
 * verified, and a prompt limit checked before any routing or reservation.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class GatewayBodyLimitTest {
  @TestHTTPResource("/v1/chat/completions")
  URI chat;

  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> post(HttpRequest.BodyPublisher body, String key) throws Exception {
    return http.send(
        HttpRequest.newBuilder(chat)
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + key)
            .POST(body)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String chatBody(int contentBytes) {
    return "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\""
        + "a".repeat(contentBytes)
        + "\"}]}";
  }

  @Test
  void aBodyOverTheLimit_is413ProblemJson_beforeTheKeyIsEvenChecked() throws Exception {
    byte[] body = chatBody(5 << 20).getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> r = post(HttpRequest.BodyPublishers.ofByteArray(body), "not-a-key");
    assertEquals(413, r.statusCode(), r.body());
    assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""));
    assertTrue(r.body().contains("at most 4194304"), r.body());
  }

  @Test
  void aChunkedBody_is411_sinceItsSizeCannotBeBoundedFirst() throws Exception {
    byte[] body = chatBody(10).getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> r =
        post(
            HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)),
            "not-a-key");
    assertEquals(411, r.statusCode(), r.body());
    assertTrue(r.body().contains("Content-Length"), r.body());
  }

  @Test
  void aPromptOverOneMebibyte_is413_beforeRoutingOrReserving() throws Exception {
    GatewayFixture fixture = GatewayFixture.create();
    HttpResponse<String> r =
        post(HttpRequest.BodyPublishers.ofString(chatBody(2 << 20)), fixture.apiKey());
    assertEquals(413, r.statusCode(), r.body());
    assertTrue(r.body().contains("Prompt too large"), r.body());
  }
}
