package io.tensafe.marketplace.health;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItems;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * The marketplace is ready against the real PostgreSQL with its migrations applied. (The whole
 * report may be down for the shared test database's node-less fleets: {@link
 * NodeAvailabilityTest}.)
 */
@QuarkusTest
class HealthTest {

  @Test
  void health_realPostgres_isUpWithDatabaseAndSchemaChecks() {
    given()
        .when()
        .get("/q/health/ready")
        .then()
        .log()
        .ifValidationFails()
        .statusCode(200)
        .body("status", equalTo("UP"))
        .body(
            "checks.name", hasItems("Database connections health check", SchemaReadinessCheck.NAME))
        .body(
            "checks.find { it.name == 'Database schema' }.data.schemaVersion",
            greaterThanOrEqualTo(1));
  }

  @Test
  void rootPage_servedFromWebUi_hasStatusSection() {
    given()
        .when()
        .get("/")
        .then()
        .statusCode(200)
        .contentType("text/html")
        .body(org.hamcrest.Matchers.containsString("Service status"));
  }
}
