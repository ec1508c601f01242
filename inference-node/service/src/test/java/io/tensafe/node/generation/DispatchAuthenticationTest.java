package io.tensafe.node.generation;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tensafe.node.marketplace.DispatchToken;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** A node connected to a marketplace serves generation and adapter requests only to it. */
@QuarkusTest
@QuarkusTestResource(value = ConnectedNodeResource.class, restrictToAnnotatedClass = true)
class DispatchAuthenticationTest {
  private static final String BODY = "{\"prompt\":\"Hello\",\"max_tokens\":2}";

  @Inject DispatchToken token;

  @Test
  void withoutTheDispatchToken_generationAndAdapterRequestsAre401() {
    for (String authorization : new String[] {null, "Bearer wrong", "Basic " + token.value()}) {
      var request = given().contentType("application/json").body(BODY);
      if (authorization != null) {
        request.header("Authorization", authorization);
      }
      request
          .post("/v1/generate/stream")
          .then()
          .statusCode(401)
          .contentType(containsString("application/problem+json"))
          .body("status", equalTo(401))
          .body("detail", containsString("dispatch token"));
    }
    given().body(BODY).contentType("application/json").post("/v1/generate").then().statusCode(401);
    given().put("/v1/adapters/tiny-qa").then().statusCode(401);
    // Other spellings of the same paths are refused too (deny by default).
    given().body(BODY).contentType("application/json").post("//v1/generate").then().statusCode(401);
    given()
        .body(BODY)
        .contentType("application/json")
        .post("/v1/./generate")
        .then()
        .statusCode(401);
  }

  @Test
  void withTheDispatchToken_theNodeGenerates_andHealthStaysOpen() {
    given()
        .header("Authorization", "Bearer " + token.value())
        .contentType("application/json")
        .body(BODY)
        .post("/v1/generate")
        .then()
        .statusCode(200)
        .body("usage.completion_tokens", equalTo(2));
    given().get("/q/health/live").then().statusCode(200);
    given().get("/metrics").then().statusCode(200);
  }
}
