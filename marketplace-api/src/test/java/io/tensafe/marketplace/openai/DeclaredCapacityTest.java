package io.tensafe.marketplace.openai;

import static io.tensafe.marketplace.testing.Calls.getAs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, nodes, second item: what a node declares does not win it traffic. A node is given at
 * most {@code least(maxConcurrency, 4 + completed / 8)} requests at once, {@code completed} being
 * the requests the marketplace saw it complete in the last ten minutes (ADR 0029); and its
 * declaration that it holds an adapter counts only if its credential downloaded that version's
 * package.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class DeclaredCapacityTest {
  @Inject EntityManager em;

  /** The slot ceiling of a node that has completed nothing yet, whatever it declares. */
  static final int BASE_SLOTS = 4;

  @Test
  void aNodeDeclaring4096Slots_holdsNoMoreThanItsCeilingBesideAnHonestNode() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    String liarCredential = Actors.token("liar-" + f.suffix(), "node");
    try (FakeNode honest = new FakeNode();
        FakeNode liar = new FakeNode()) {
      String honestName = "honest-" + f.suffix();
      String liarName = "liar-" + f.suffix();
      f.registerNode(honestName, honest.url(), List.of(f.adapterId()), 4, honest.dispatchToken);
      f.registerAs(
              liarCredential,
              liarName,
              liar.url(),
              List.of(f.adapterId(), "every", "other", "adapter"),
              4096,
              liar.dispatchToken)
          .then()
          .statusCode(200);
      // Both hold the adapter for real, so only the declared capacity differs.
      download(f, f.nodeToken(), honestName);
      download(f, liarCredential, liarName);
      // Each node sends its first token at once and then holds the stream: every request below is
      // sent before any ends, so what a node was sent is what it held at once.
      honest.delayMillis = 3000;
      liar.delayMillis = 3000;

      int clients = 12;
      ExecutorService pool = Executors.newFixedThreadPool(clients);
      List<Future<Integer>> statuses = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        int n = i;
        statuses.add(pool.submit(() -> f.chat("hello " + n).statusCode()));
        Thread.sleep(100);
      }
      // The four beyond both ceilings wait for a slot (ADR 0038) and are served when one frees.
      for (Future<Integer> s : statuses) {
        assertEquals(200, s.get());
      }
      pool.shutdown();
      assertTrue(
          liar.maxInFlight.get() <= BASE_SLOTS,
          "the node declaring 4096 slots held " + liar.maxInFlight.get() + " requests at once");
      assertTrue(honest.maxInFlight.get() >= 3, "the honest node held " + honest.maxInFlight);
      assertEquals(clients, honest.requests.size() + liar.requests.size());
    }
  }

  @Test
  void aNodeDeclaringAnAdapterItNeverDownloaded_isNotPreferredForIt() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    String liarCredential = Actors.token("liar-" + f.suffix(), "node");
    try (FakeNode honest = new FakeNode();
        FakeNode liar = new FakeNode()) {
      String honestName = "honest-" + f.suffix();
      f.registerNode(honestName, honest.url(), List.of(f.adapterId()), 4, honest.dispatchToken);
      download(f, f.nodeToken(), honestName);
      f.chat("before the other node comes").then().statusCode(200); // the key is now in memory
      f.registerAs(
              liarCredential,
              "liar-" + f.suffix(),
              liar.url(),
              List.of(f.adapterId()),
              4,
              liar.dispatchToken)
          .then()
          .statusCode(200);
      honest.delayMillis = 3000;
      liar.delayMillis = 3000;

      // Four streams open at once: between two nodes that hold the adapter, the less loaded takes
      // the next one, so each would take every other one.
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<Integer>> statuses = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        int n = i;
        statuses.add(pool.submit(() -> f.chat("hello " + n).statusCode()));
        Thread.sleep(300);
      }
      for (Future<Integer> s : statuses) {
        assertEquals(200, s.get());
      }
      pool.shutdown();
      assertEquals(0, liar.requests.size(), "the node that never fetched the package was chosen");
      assertEquals(5, honest.requests.size());
    }
  }

  @Test
  void aNodeThatCompletedEightRequests_isGivenOneSlotMore() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      String name = "grower-" + f.suffix();
      f.registerNode(name, node.url(), List.of(f.adapterId()), 4096, node.dispatchToken);
      assertEquals(BASE_SLOTS, slots(name));
      for (int i = 0; i < 8; i++) {
        f.chat("hello " + i).then().statusCode(200);
      }
      assertEquals(BASE_SLOTS + 1, slots(name));
    }
  }

  /**
   * Issue 51: a fresh node's four slots used to turn a burst into 503s at once (8 concurrent
   * requests: 4 served, 4 refused). Now a request waits for a slot, as an engine's queue would: all
   * are served, never more than the ceiling at once.
   */
  @Test
  void eightConcurrentRequestsOnAFreshNode_allWaitForASlotAndAreServed() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      f.registerNode("fresh-" + f.suffix(), node.url(), List.of(), 64, node.dispatchToken);
      node.delayMillis = 500;
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<Integer>> statuses = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        int n = i;
        statuses.add(pool.submit(() -> f.chat("hello " + n).statusCode()));
      }
      for (Future<Integer> s : statuses) {
        assertEquals(200, s.get());
      }
      pool.shutdown();
      assertEquals(8, node.requests.size());
      assertTrue(node.maxInFlight.get() <= BASE_SLOTS, "held " + node.maxInFlight + " at once");
    }
  }

  /**
   * A node earns slots from the concurrency it is seen to sustain (busy time per minute, Little's
   * law), not only from a count: four requests held for a combined 60 s in this minute earn two
   * slots at once, where the count alone (four of eight) earns none.
   */
  @Test
  void aNodeThatKeepsItsSlotsBusy_earnsSlotsFromItsObservedConcurrency() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      String name = "busy-" + f.suffix();
      f.registerNode(name, node.url(), List.of(), 4096, node.dispatchToken);
      io.quarkus.narayana.jta.QuarkusTransaction.requiringNew()
          .run(
              () ->
                  em.createNativeQuery(
                          "INSERT INTO node_served (node_id, minute, completed, busy_ms)"
                              + " SELECT id, date_trunc('minute', now()), 4, 60000 FROM node"
                              + " WHERE name = :n")
                      .setParameter("n", name)
                      .executeUpdate());
      assertEquals(BASE_SLOTS + 2, slots(name));
    }
  }

  /** The slot ceiling of node {@code name} now, as the dispatch query reads it. */
  private int slots(String name) {
    return ((Number)
            em.createNativeQuery("SELECT slots FROM usable_node WHERE name = :n")
                .setParameter("n", name)
                .getSingleResult())
        .intValue();
  }

  private static void download(GatewayFixture f, String credential, String node) {
    getAs(credential, "/api/node/packages/" + f.adapterId() + "/1.0.0?node=" + node)
        .then()
        .statusCode(200);
  }
}
