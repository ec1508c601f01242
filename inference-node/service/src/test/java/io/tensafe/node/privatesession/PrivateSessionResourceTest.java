package io.tensafe.node.privatesession;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tensafe.node.generation.TinyModelResource;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The node's private-session API refuses what it cannot serve with problem+json before it holds
 * anything: an adapter without a DP policy (local adapters have none), a bad key or limits, frames
 * for a session it does not hold. The served path runs in the CLI tests against a real marketplace
 * (an adapter with a policy) and in the runtime's {@code PrivateDecodingTest}.
 */
@QuarkusTest
@QuarkusTestResource(TinyModelResource.class)
class PrivateSessionResourceTest {
  private static String opening(String adapter, String key, int maxPrompt, int maxDecode) {
    return "{\"session_id\":\""
        + UUID.randomUUID()
        + "\",\"adapter\":\""
        + adapter
        + "\",\"public_keys\":[\""
        + key
        + "\"],\"max_prompt_tokens\":"
        + maxPrompt
        + ",\"max_decode_steps\":"
        + maxDecode
        + "}";
  }

  @Test
  void anAdapterWithoutADpPolicy_isRefusedForPrivateMode() {
    given()
        .contentType("application/json")
        .body(opening("tiny-qa@1.0.0", "AAAA", 8, 4))
        .post("/v1/private/sessions")
        .then()
        .statusCode(422)
        .contentType("application/problem+json")
        .body("detail", containsString("DP policy"));
  }

  @Test
  void badOpenings_andUnknownSessions_getProblemJson() {
    given()
        .contentType("application/json")
        .body(opening("tiny-qa@1.0.0", "AAAA", 0, 4))
        .post("/v1/private/sessions")
        .then()
        .statusCode(400)
        .body("detail", containsString("max_prompt_tokens"));
    given()
        .contentType("application/json")
        .body(opening("tiny-qa@1.0.0", "AAAA", 8, 100_000))
        .post("/v1/private/sessions")
        .then()
        .statusCode(400)
        .body("detail", containsString("max_decode_steps"));
    given()
        .contentType("application/json")
        .body("{\"session_id\":\"not-a-uuid\",\"adapter\":\"tiny-qa\",\"public_keys\":[\"AAAA\"]}")
        .post("/v1/private/sessions")
        .then()
        .statusCode(400);
    given()
        .contentType("application/octet-stream")
        .body(new byte[] {1, 2, 3})
        .post("/v1/private/sessions/" + UUID.randomUUID() + "/frames")
        .then()
        .statusCode(404)
        .contentType("application/problem+json");
    given().delete("/v1/private/sessions/" + UUID.randomUUID()).then().statusCode(404);
  }
}
