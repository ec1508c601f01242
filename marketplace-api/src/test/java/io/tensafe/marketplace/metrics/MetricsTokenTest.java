package io.tensafe.marketplace.metrics;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** With a scrape token configured, {@code /metrics} answers only its holder, even on loopback. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(MetricsTokenTest.WithToken.class)
class MetricsTokenTest {
  public static class WithToken implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("tensafe.metrics.token", "scrape-token-for-tests");
    }
  }

  @Test
  void metrics_needTheScrapeToken() {
    given().get("/metrics").then().statusCode(401).contentType("application/problem+json");
    given()
        .header("Authorization", "Bearer scrape-token-for-tests")
        .get("/metrics")
        .then()
        .statusCode(200)
        .body(containsString("jvm_"));
  }
}
