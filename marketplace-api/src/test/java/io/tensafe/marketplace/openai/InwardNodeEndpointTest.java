package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The attacker is a node operator who registers endpoints that reach inward (issue 35, ADR 0028):
 * with the production rule on, an endpoint resolving to a non-public address outside the
 * allow-listed networks is refused at registration, and a stored one is never sent a request.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(InwardNodeEndpointTest.PublicOnly.class)
class InwardNodeEndpointTest {
  /** Production's rule, with this host's 127.0.0.1 allow-listed as the operator's node network. */
  public static class PublicOnly implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.nodes.addresses.public-only", "true",
          "tensafe.nodes.addresses.allowed-networks", "127.0.0.1/32");
    }
  }

  @Inject EntityManager em;

  FakeNode node;
  GatewayFixture fixture;

  @BeforeEach
  void aFleet() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  @Test
  void inwardEndpoints_areRefusedAtRegistration() throws Exception {
    int port = Integer.parseInt(node.url().replaceAll(".*:", ""));
    for (String url :
        List.of(
            "http://169.254.169.254",
            "http://127.0.0.2:" + port,
            "http://10.0.0.1:8180",
            "http://[::1]:" + port,
            "http://[::ffff:169.254.169.254]")) {
      fixture
          .register("inward", url, List.of(), 4, node.dispatchToken)
          .then()
          .statusCode(400)
          .body("detail", containsString("not a public address"));
    }
    assertEquals(0, node.requests.size());
  }

  @Test
  void anAllowListedNodeServes_butAStoredInwardEndpointIsNeverCalled() throws Exception {
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
    chat().then().statusCode(200);
    assertEquals(1, node.requests.size());
    // A row stored before the rule (or written around it) now points at another loopback address.
    String inward = node.url().replace("127.0.0.1", "127.0.0.2");
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery("UPDATE node SET endpoint = ?1 WHERE name = 'node-1'")
                    .setParameter(1, inward)
                    .executeUpdate());
    chat().then().statusCode(503);
    assertEquals(1, node.requests.size(), "no request reached the inward address");
    // Each try was admitted (its record and reservation committed by the admission's one call,
    // ADR 0042), found no node this replica may call, and was ended at once: nothing billed,
    // every reservation refunded, no slot of the node or the key left held.
    List<?> tries =
        em.createNativeQuery(
                "SELECT g.outcome FROM gateway_request g WHERE g.adapter_ref = ?1"
                    + " AND g.outcome IS DISTINCT FROM 'completed'")
            .setParameter(1, fixture.adapterId())
            .getResultList();
    assertTrue(!tries.isEmpty(), "the admission recorded its tries");
    assertEquals(List.of("no_node"), tries.stream().distinct().toList());
    assertEquals(
        0L,
        count(
            "SELECT count(*) FROM gateway_request g WHERE g.adapter_ref = ?1"
                + " AND (g.ended_at IS NULL OR (g.outcome = 'no_node' AND (EXISTS (SELECT 1"
                + " FROM charge c WHERE c.request_id = g.request_id::text) OR NOT EXISTS"
                + " (SELECT 1 FROM dp_budget_event e WHERE e.request_id = g.request_id::text"
                + " AND e.kind = 'refund'))))"),
        "an unended try, or one billed or not refunded");
    assertEquals(
        0L,
        count(
            "SELECT count(*) FROM limit_lease l WHERE l.subject IN (SELECT id FROM node"
                + " WHERE name = 'node-1') OR l.subject IN (SELECT k.id FROM api_key k"
                + " WHERE k.prefix = ?1)",
            fixture.apiKey().substring(0, 16)),
        "a slot left held");
  }

  private long count(String sql) {
    return count(sql, fixture.adapterId());
  }

  private long count(String sql, String parameter) {
    return ((Number) em.createNativeQuery(sql).setParameter(1, parameter).getSingleResult())
        .longValue();
  }

  private io.restassured.response.Response chat() {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
        .post("/v1/chat/completions");
  }
}
