package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Issue 51 (ADR 0038): many keys bypassed every limit, since rate and concurrency were per key and
 * any member can create keys. An organisation's keys now share its limits: here 2 requests in
 * flight and 5 a minute, across its keys.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(OrganisationLimitsTest.SmallOrganisations.class)
class OrganisationLimitsTest {
  /** Two requests in flight and five a minute per organisation. */
  public static class SmallOrganisations implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.limits.organisation-max-in-flight", "2",
          "tensafe.limits.organisation-requests-per-minute", "5");
    }
  }

  private static String newKey(GatewayFixture f, String name) {
    return postJson(
            Actors.token("client-" + f.suffix(), "client"),
            "/api/client/api-keys",
            "{\"name\":\"" + name + "\"}")
        .then()
        .statusCode(201)
        .extract()
        .path("key");
  }

  private static io.restassured.response.Response chat(GatewayFixture f, String key) {
    return given()
        .header("Authorization", "Bearer " + key)
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + f.adapterId()
                + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
        .post("/v1/chat/completions");
  }

  @Test
  void threeKeysOfOneOrganisation_shareItsInFlightAndRateLimits() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      f.registerNode("node-1", node.url(), List.of(), 64, node.dispatchToken);
      List<String> keys = List.of(f.apiKey(), newKey(f, "second"), newKey(f, "third"));
      node.delayMillis = 1500; // each request holds its slot about 3 s
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<io.restassured.response.Response>> answers = new ArrayList<>();
      for (String key : keys) {
        answers.add(pool.submit(() -> chat(f, key)));
        Thread.sleep(200);
      }
      List<Integer> statuses = new ArrayList<>();
      String refusal = "";
      for (var a : answers) {
        statuses.add(a.get().statusCode());
        if (a.get().statusCode() == 429) {
          refusal = a.get().asString();
        }
      }
      pool.shutdown();
      // One key each, so no key limit is near: whichever came third was the organisation's third
      // in flight.
      assertEquals(List.of(200, 200, 429), statuses.stream().sorted().toList(), "" + statuses);
      assertTrue(refusal.contains("organisation already has 2 requests in flight"), refusal);
      assertTrue(node.maxInFlight.get() <= 2, "held " + node.maxInFlight);

      // Five a minute, all keys together: three were drawn; two more pass, the next is refused.
      node.delayMillis = 0;
      chat(f, keys.get(0)).then().statusCode(200);
      chat(f, keys.get(1)).then().statusCode(200);
      io.restassured.response.Response refused = chat(f, keys.get(2));
      assertEquals(429, refused.statusCode(), refused.asString());
      assertTrue(
          refused.asString().contains("organisation may start 5 requests per minute"),
          refused.asString());
      assertTrue(Integer.parseInt(refused.header("Retry-After")) >= 1);
    }
  }
}
