package io.tensafe.marketplace;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import org.junit.jupiter.api.Test;

/** OpenAPI, Swagger UI, Prometheus metrics, and problem+json for unknown routes. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class OperationsEndpointsTest {
  @Test
  void openApi_describesTheCreatorAndNodeEndpoints() {
    given()
        .get("/q/openapi")
        .then()
        .statusCode(200)
        .body(containsString("/api/creator/packages"))
        .body(containsString("/api/node/packages/{adapterId}/{version}"));
    given().get("/q/swagger-ui/").then().statusCode(200);
  }

  @Test
  void metrics_arePrometheusText() {
    given().get("/api/fleets/keys").then().statusCode(200);
    given()
        .get("/metrics")
        .then()
        .statusCode(200)
        .body(containsString("http_server_requests_seconds_count"));
  }

  @Test
  void unknownRoute_isAProblem() {
    given()
        .get("/api/no-such-thing")
        .then()
        .statusCode(404)
        .contentType("application/problem+json")
        .body("status", equalTo(404));
  }
}
