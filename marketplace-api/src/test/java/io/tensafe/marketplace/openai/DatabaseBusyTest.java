package io.tensafe.marketplace.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * When every database connection stays busy past the pool's acquisition timeout (a burst), the
 * gateway answers 503 with {@code Retry-After}, not 500, and records nothing for the request.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(DatabaseBusyTest.TinyPool.class)
class DatabaseBusyTest {
  static final int POOL = 3;

  /** A pool of three connections that gives up after half a second. */
  public static class TinyPool implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "quarkus.datasource.jdbc.max-size",
          String.valueOf(POOL),
          "quarkus.datasource.jdbc.acquisition-timeout",
          "0.5s");
    }
  }

  @Inject AgroalDataSource dataSource;
  @Inject EntityManager em;

  @TestHTTPResource("/v1/chat/completions")
  URI chat;

  @Test
  void aRequestThatFindsNoFreeConnection_is503WithRetryAfter_andLeavesNoRecord() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    String body =
        "{\"model\":\""
            + f.adapterId()
            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    HttpResponse<String> r;
    List<Connection> held = new ArrayList<>();
    try {
      while (held.size() < POOL) {
        try {
          held.add(dataSource.getConnection());
        } catch (java.sql.SQLException busyWithABackgroundJob) {
          // a scheduled job had one for a moment; ask again
        }
      }
      r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(chat)
                      .header("Content-Type", "application/json")
                      .header("Authorization", "Bearer " + f.apiKey())
                      .POST(HttpRequest.BodyPublishers.ofString(body))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
    } finally {
      for (Connection c : held) {
        c.close();
      }
    }
    assertEquals(503, r.statusCode(), r.body());
    assertEquals("1", r.headers().firstValue("Retry-After").orElse(""), r.body());
    assertTrue(r.body().contains("service-busy"), r.body());
    long recorded =
        ((Number)
                em.createNativeQuery(
                        "SELECT count(*) FROM gateway_request g JOIN api_key k"
                            + " ON k.id = g.api_key_id WHERE k.prefix = :p")
                    .setParameter("p", f.apiKey().substring(0, 16))
                    .getSingleResult())
            .longValue();
    assertEquals(0, recorded);
  }
}
