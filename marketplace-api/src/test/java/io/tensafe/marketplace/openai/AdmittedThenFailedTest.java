package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admission commits on its own (ADR 0042): a failure after {@code admit} committed and before
 * any node is sent the request ends it unserved ({@code no_node}, its reservation refunded) and
 * gives back every slot the call took, at once or, when giving back fails, at the next sweeps. An
 * adversarial review found both paths below leaving the request open and reserved, and the first
 * leaving a node slot held for as long as the replica renewed it.
 *
 * <p>The database failure is simulated with a trigger (a pool timeout or a dropped connection does
 * the same in production).
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(InwardNodeEndpointTest.PublicOnly.class)
class AdmittedThenFailedTest {
  @Inject AgroalDataSource data;

  FakeNode node;
  GatewayFixture fixture;
  String okId;
  String inwardId;

  @BeforeEach
  void twoNodes() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
    fixture.registerNode("review-ok", node.url(), List.of(), 4, node.dispatchToken);
    fixture.registerNode("review-inward", node.url(), List.of(), 4, node.dispatchToken);
    okId = one("SELECT id::text FROM node WHERE name = 'review-ok' ORDER BY registered_at DESC");
    inwardId =
        one("SELECT id::text FROM node WHERE name = 'review-inward' ORDER BY registered_at DESC");
    exec(
        "UPDATE node SET endpoint = '"
            + node.url().replace("127.0.0.1", "127.0.0.2")
            + "' WHERE id = '"
            + inwardId
            + "'");
    exec(
        "CREATE OR REPLACE FUNCTION review_fail() RETURNS trigger LANGUAGE plpgsql AS $$"
            + " BEGIN RAISE EXCEPTION 'review: simulated database failure'; END $$");
  }

  @AfterEach
  void cleanUp() throws Exception {
    exec("DROP TRIGGER IF EXISTS review_fail_give ON limit_lease");
    exec("DROP TRIGGER IF EXISTS review_fail_assign ON gateway_request");
    exec(
        "DELETE FROM limit_lease WHERE subject IN ('"
            + okId
            + "'::uuid, '"
            + inwardId
            + "'::uuid)");
    node.close();
  }

  /**
   * Giving back the unusable node's slot ({@code NodeDispatcher.chosen}, after the commit) fails:
   * the request is ended and refunded, and the usable node's slot the call took is given back once
   * the database lets it (the sweep retries).
   */
  @Test
  void aFailureInChosen_afterTheCommit_endsTheRequest_andGivesBackItsSlots() throws Exception {
    exec(
        "CREATE TRIGGER review_fail_give BEFORE DELETE ON limit_lease FOR EACH ROW WHEN"
            + " (OLD.subject = '"
            + inwardId
            + "'::uuid) EXECUTE FUNCTION review_fail()");
    int status = chat().statusCode();
    assertNotEquals(200, status, "the request failed");
    exec("DROP TRIGGER review_fail_give ON limit_lease");
    assertEquals(0, node.requests.size(), "no node was sent it");
    assertEndedAndRefunded();
    // The give failed while the trigger stood; the sweep gives the slots back after it.
    long deadline = System.nanoTime() + 20_000_000_000L;
    String held;
    do {
      Thread.sleep(250);
      held =
          one(
              "SELECT count(*)::text FROM limit_lease WHERE subject IN ('"
                  + okId
                  + "'::uuid, '"
                  + inwardId
                  + "'::uuid)");
    } while (!held.equals("0") && System.nanoTime() < deadline);
    assertEquals("0", held, "a slot the call took is still held");
  }

  /**
   * The best node is unusable and another is: {@code RequestAdmission.admit} re-assigns the
   * committed request ({@code GatewayRequests.assign}) after the commit; that failing ends the
   * request unserved and refunded (no node was ever sent it), its slots given back.
   */
  @Test
  void aFailedReassignment_afterTheCommit_endsTheRequest_andGivesBackItsSlots() throws Exception {
    // The usable node looks busier, so the call records the request on the unusable one first.
    exec(
        "INSERT INTO limit_lease (id, kind, subject, holder, expires_at) VALUES"
            + " (gen_random_uuid(), 'node', '"
            + okId
            + "'::uuid, gen_random_uuid(), now() + interval '1 hour')");
    exec(
        "CREATE TRIGGER review_fail_assign BEFORE UPDATE OF node_id ON gateway_request FOR EACH"
            + " ROW WHEN (OLD.ended_at IS NULL) EXECUTE FUNCTION review_fail()");
    int status = chat().statusCode();
    exec("DROP TRIGGER review_fail_assign ON gateway_request");
    assertNotEquals(200, status, "the request failed");
    assertEquals(0, node.requests.size(), "no node was sent it");
    assertEndedAndRefunded();
    assertEquals(
        "1",
        one("SELECT count(*)::text FROM limit_lease WHERE subject = '" + okId + "'::uuid"),
        "only the test's own lease is left on the usable node");
  }

  /** The one request recorded ended {@code no_node}, unbilled, its reservation refunded. */
  private void assertEndedAndRefunded() throws Exception {
    String g = "gateway_request g WHERE g.adapter_ref = '" + fixture.adapterId() + "'";
    assertEquals("1", one("SELECT count(*)::text FROM " + g));
    assertEquals("no_node", one("SELECT g.outcome FROM " + g));
    assertEquals(
        "1",
        one(
            "SELECT count(*)::text FROM "
                + g
                + " AND EXISTS (SELECT 1 FROM dp_budget_event e WHERE e.request_id ="
                + " g.request_id::text AND e.kind = 'refund')"),
        "its reservation refunded");
    assertEquals(
        "0",
        one("SELECT count(*)::text FROM charge c, " + g + " AND c.request_id = g.request_id::text"),
        "nothing billed");
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

  private void exec(String sql) throws Exception {
    try (Connection c = data.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private String one(String sql) throws Exception {
    try (Connection c = data.getConnection();
        PreparedStatement s = c.prepareStatement(sql);
        ResultSet r = s.executeQuery()) {
      r.next();
      return r.getString(1);
    }
  }
}
