package io.tensafe.marketplace.openai;

import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, nodes, first item: suspension is checked in one place ({@code usable_node}, migration
 * V31). A suspension of one of a credential's nodes binds every name of that credential, and a
 * suspension of the organisation that operates a credential binds all its nodes: none of them is
 * dispatched to, and their heartbeats, usage reports and package downloads are refused with 403.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class NodeSuspensionTest {
  @Inject EntityManager em;

  @Test
  void credentialSuspended_itsOtherNameGetsNoRequestAndIsRefusedEverywhere() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    String admin = Actors.token("admin-" + f.suffix(), "admin");
    try (FakeNode first = new FakeNode();
        FakeNode second = new FakeNode();
        FakeNode honest = new FakeNode()) {
      String firstId =
          f.register(
                  "first-" + f.suffix(),
                  first.url(),
                  List.of(f.adapterId()),
                  4,
                  first.dispatchToken)
              .then()
              .statusCode(200)
              .extract()
              .path("id");
      // The credential's second name declares the adapter loaded: before V31 it was preferred.
      String secondName = "second-" + f.suffix();
      f.registerNode(secondName, second.url(), List.of(f.adapterId()), 4, second.dispatchToken);
      f.registerAs(
              Actors.token("honest-" + f.suffix(), "node"),
              "honest-" + f.suffix(),
              honest.url(),
              List.of(),
              4,
              honest.dispatchToken)
          .then()
          .statusCode(200);

      postJson(admin, "/api/admin/nodes/" + firstId + "/suspend", "{}").then().statusCode(200);

      for (int i = 0; i < 4; i++) {
        f.chat("hello " + i).then().statusCode(200);
      }
      assertEquals(0, second.requests.size(), "the suspended credential's other name was sent to");
      assertEquals(4, honest.requests.size());
      assertRefusedEverywhere(f, f.nodeToken(), secondName);
    }
  }

  @Test
  void organisationSuspended_itsNodesGetNoRequestAndAreRefused_untilRestored() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    String admin = Actors.token("admin-" + f.suffix(), "admin");
    String slug = "operator-" + f.suffix();
    postJson(
            Actors.token("operator-" + f.suffix(), "client"),
            "/api/organisations",
            "{\"slug\":\"" + slug + "\",\"displayName\":\"Operator\"}")
        .then()
        .statusCode(201);
    String operated = Actors.nodeToken("operated-" + f.suffix(), slug);
    try (FakeNode node = new FakeNode();
        FakeNode honest = new FakeNode()) {
      String name = "operated-" + f.suffix();
      f.registerAs(operated, name, node.url(), List.of(f.adapterId()), 4, node.dispatchToken)
          .then()
          .statusCode(200);
      f.registerNode("honest-" + f.suffix(), honest.url(), List.of(), 4, honest.dispatchToken);
      // It fetched the adapter's package, so its declaration that it holds it counts.
      getAs(operated, "/api/node/packages/" + f.adapterId() + "/1.0.0?node=" + name)
          .then()
          .statusCode(200);

      postJson(admin, "/api/admin/organisations/" + slug + "/suspend", "{}").then().statusCode(200);
      for (int i = 0; i < 3; i++) {
        f.chat("hello " + i).then().statusCode(200);
      }
      assertEquals(0, node.requests.size(), "a node of a suspended organisation was sent to");
      assertEquals(3, honest.requests.size());
      assertRefusedEverywhere(f, operated, name);
      long audited =
          ((Number)
                  em.createNativeQuery(
                          "SELECT count(*) FROM audit_log WHERE action = 'organisations.suspend'"
                              + " AND target_id = :slug")
                      .setParameter("slug", slug)
                      .getSingleResult())
              .longValue();
      assertEquals(1, audited);

      postJson(admin, "/api/admin/organisations/" + slug + "/unsuspend", "{}")
          .then()
          .statusCode(200);
      postJson(operated, "/api/node/heartbeat", "{\"name\":\"" + name + "\"}")
          .then()
          .statusCode(200);
      f.chat("after").then().statusCode(200);
      assertEquals(1, node.requests.size(), "the restored organisation's node holds the adapter");
    }
  }

  /** Heartbeat, usage report and package download of {@code name} are all 403 problems. */
  private static void assertRefusedEverywhere(GatewayFixture f, String credential, String name) {
    postJson(credential, "/api/node/heartbeat", "{\"name\":\"" + name + "\"}")
        .then()
        .statusCode(403)
        .contentType(startsWith("application/problem+json"));
    postJson(credential, "/api/node/usage", report(name, f.adapterId()))
        .then()
        .statusCode(403)
        .contentType(startsWith("application/problem+json"));
    getAs(credential, "/api/node/packages/" + f.adapterId() + "/1.0.0?node=" + name)
        .then()
        .statusCode(403)
        .contentType(startsWith("application/problem+json"));
  }

  private static String report(String node, String adapterId) {
    return """
        {"requestId":"%s","node":"%s","adapterId":"%s","adapterVersion":"1.0.0",
         "promptTokens":7,"completionTokens":2,"finishReason":"stop","dpReleases":8,
         "dpNoiseMultiplier":50,"heCalls":1,"heEncryptions":1,"hePlaintextProducts":1,
         "heDecryptions":1,"heMillis":1.5,"totalMillis":4.25,
         "startedAt":"2026-11-22T10:00:00Z","finishedAt":"2026-11-22T10:00:01.5Z"}
        """
        .formatted(UUID.randomUUID(), node, adapterId);
  }
}
