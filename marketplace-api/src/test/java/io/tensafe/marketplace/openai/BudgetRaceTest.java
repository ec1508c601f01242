package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Reserve what a request can use (issue 34): 50 concurrent requests against an adapter whose budget
 * holds about ten of them. Each reserves (its counted prompt + max_tokens) releases, so the budget
 * admits as many as that fits at once, and never overspends.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(BudgetRaceTest.ManyInFlight.class)
class BudgetRaceTest {
  /** The key's concurrency is not what limits the race. */
  public static class ManyInFlight implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tensafe.gateway.max-concurrency-per-key",
          "100",
          // The node is trusted with what it declares: its slots are not this test's subject.
          "tensafe.nodes.unproven-slots",
          "4096");
    }
  }

  @Inject EntityManager em;

  @Test
  void fiftyConcurrentRequests_areServedAsTheirReservationsFit_andNothingOverspends()
      throws Exception {
    // Noise multiplier 15: ρ 2/225 a release; ε 10 at δ 1e-5 is about ρ 1.55, so the budget holds
    // about 10 reservations of (prompt ≈ 9 + max_tokens 8) releases.
    GatewayFixture f = GatewayFixture.create("15");
    try (FakeNode node = new FakeNode()) {
      node.firstTokenDelayMillis = 300; // all 50 are in flight together
      f.registerNode("node-race", node.url(), List.of(), 100, node.dispatchToken);
      String body =
          "{\"model\":\""
              + f.adapterId()
              + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":8}";
      ExecutorService pool = Executors.newFixedThreadPool(50);
      List<Future<Integer>> answers = new ArrayList<>();
      try {
        for (int i = 0; i < 50; i++) {
          Callable<Integer> call =
              () ->
                  given()
                      .header("Authorization", "Bearer " + f.apiKey())
                      .contentType("application/json")
                      .body(body)
                      .post("/v1/chat/completions")
                      .statusCode();
          answers.add(pool.submit(call));
        }
        int served = 0;
        int refused = 0;
        for (Future<Integer> a : answers) {
          int status = a.get();
          if (status == 200) {
            served++;
          } else {
            assertEquals(429, status);
            refused++;
          }
        }
        Object[] budget =
            (Object[])
                em.createNativeQuery(
                        "SELECT b.rho_limit + b.rho_top_up, b.rho_spent,"
                            + " (SELECT max(e.rho) FROM dp_budget_event e"
                            + "  WHERE e.budget_id = b.id AND e.kind = 'reserve'),"
                            + " (SELECT coalesce(sum(e.rho), 0) FROM dp_budget_event e"
                            + "  WHERE e.budget_id = b.id AND e.kind = 'settle')"
                            + " FROM dp_budget b JOIN adapter a ON a.id = b.adapter_id"
                            + " WHERE a.adapter_ref = ?1")
                    .setParameter(1, f.adapterId())
                    .getSingleResult();
        BigDecimal capacity = (BigDecimal) budget[0];
        BigDecimal spent = (BigDecimal) budget[1];
        BigDecimal perReservation = (BigDecimal) budget[2];
        BigDecimal settled = (BigDecimal) budget[3];
        int fitAtOnce = capacity.divide(perReservation, java.math.RoundingMode.FLOOR).intValue();
        assertTrue(fitAtOnce >= 8, "the budget holds " + fitAtOnce + " reservations");
        assertTrue(
            served >= fitAtOnce,
            served + " served, " + refused + " refused; " + fitAtOnce + " fit at once");
        assertTrue(spent.compareTo(capacity) <= 0, "spent " + spent + " of " + capacity);
        // Every served request settled, and the budget holds exactly what they settled.
        assertEquals(0, spent.compareTo(settled), "spent " + spent + ", settled " + settled);
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
