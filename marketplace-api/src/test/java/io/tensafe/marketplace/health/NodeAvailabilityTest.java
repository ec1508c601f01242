package io.tensafe.marketplace.health;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.path.json.JsonPath;
import io.tensafe.marketplace.openai.GatewayFixture;
import io.tensafe.marketplace.testing.Actors;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Health tells the truth about the fleet: a fleet serving a published adapter with no node that can
 * take a request is a down "Inference nodes" check (wellness: readiness stays up), and a node the
 * gateway fails to connect to is unhealthy at once, with the cause, until it beats again.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class NodeAvailabilityTest {

  private static Map<String, Object> nodeCheck() {
    JsonPath health = given().get("/q/health").then().extract().jsonPath();
    return health.getMap("checks.find { it.name == 'Inference nodes' }");
  }

  @Test
  void aFleetWithoutANode_isDegraded_untilANodeRegisters_andReadinessStaysUp() throws Exception {
    GatewayFixture p = GatewayFixture.create();
    Map<String, Object> check = nodeCheck();
    org.junit.jupiter.api.Assertions.assertEquals("DOWN", check.get("status"), check.toString());
    @SuppressWarnings("unchecked")
    Map<String, Object> data = (Map<String, Object>) check.get("data");
    org.junit.jupiter.api.Assertions.assertEquals("no node has registered", data.get(p.fleetRef()));
    given().get("/q/health/ready").then().statusCode(200);

    p.registerNode("node-1", "http://127.0.0.1:9", List.of(), 4, "d".repeat(43));
    @SuppressWarnings("unchecked")
    Map<String, Object> after = (Map<String, Object>) nodeCheck().get("data");
    org.junit.jupiter.api.Assertions.assertNull(after.get(p.fleetRef()), after.toString());
  }

  @Test
  void aNodeThatRefusesTheConnection_isUnhealthyAtOnce_withTheCause_untilItBeatsAgain()
      throws Exception {
    GatewayFixture p = GatewayFixture.create();
    p.registerNode("node-1", "http://127.0.0.1:9", List.of(), 4, "d".repeat(43));
    p.chat("hi").then().statusCode(503);
    String admin = Actors.token("admin-" + p.suffix(), "admin");
    JsonPath nodes = getAs(admin, "/api/admin/nodes?size=200").jsonPath();
    String where = "items.find { it.fleetId == '" + p.fleetRef() + "' }";
    org.junit.jupiter.api.Assertions.assertEquals(false, nodes.getBoolean(where + ".healthy"));
    String cause = nodes.getString(where + ".unreachable");
    org.junit.jupiter.api.Assertions.assertTrue(
        cause != null && cause.startsWith("connection failed: ConnectException"), cause);
    org.junit.jupiter.api.Assertions.assertFalse(cause.contains("null"), cause);
    @SuppressWarnings("unchecked")
    Map<String, Object> data = (Map<String, Object>) nodeCheck().get("data");
    org.junit.jupiter.api.Assertions.assertTrue(
        String.valueOf(data.get(p.fleetRef())).contains("failed the last connection"),
        data.toString());

    postJson(p.nodeToken(), "/api/node/heartbeat", "{\"name\":\"node-1\",\"loadedAdapters\":[]}")
        .then()
        .statusCode(200)
        .body("healthy", equalTo(true))
        .body("unreachable", nullValue());
  }
}
