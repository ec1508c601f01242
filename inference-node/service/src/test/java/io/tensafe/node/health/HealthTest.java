package io.tensafe.node.health;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.junit.QuarkusTest;
import io.tensafe.kernels.cuda.CudaProbe;
import org.junit.jupiter.api.Test;

@QuarkusTest
class HealthTest {

  @Test
  void health_defaultBackend_isUpAndNamesTheBackendThisMachineCanRun() {
    String expected = CudaProbe.result().available() ? "cuda" : "cpu";
    given()
        .when()
        .get("/q/health")
        .then()
        .log()
        .ifValidationFails()
        .statusCode(200)
        .body("status", equalTo("UP"))
        .body("checks.name", hasItem(HeBackendReadinessCheck.NAME))
        .body("checks.find { it.name == 'HE backend' }.data.backend", equalTo(expected))
        .body("checks.find { it.name == 'HE backend' }.data.cuda", startsWith("CUDA "));
  }
}
