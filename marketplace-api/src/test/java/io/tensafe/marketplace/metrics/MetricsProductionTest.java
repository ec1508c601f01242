package io.tensafe.marketplace.metrics;

import static io.restassured.RestAssured.given;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The attacker reaches the marketplace through a proxy on its host (issue 35): in the production
 * profile's setting a loopback caller without the scrape token reads no metrics.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(MetricsProductionTest.LoopbackNotTrusted.class)
class MetricsProductionTest {
  public static class LoopbackNotTrusted implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("tensafe.metrics.trust-loopback", "false");
    }
  }

  @Test
  void aLoopbackCallerWithoutTheToken_getsNoMetrics() {
    given().get("/metrics").then().statusCode(401).contentType("application/problem+json");
  }
}
