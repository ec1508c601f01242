package io.tensafe.marketplace.privacy;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** DP budgets on real PostgreSQL: atomic reservations, settlement, refunds, exhaustion. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class PrivacyBudgetTest {
  /** The test policy: z = 100, δ = 1e-5, ε = 10 per 30 days (Actors.pack's, with z raised). */
  static final BigDecimal Z = new BigDecimal("100");

  @Inject PrivacyBudgets budgets;
  @Inject EntityManager em;

  String suffix;
  String adapter;
  UUID client;
  long tokensPerPeriod;

  @BeforeEach
  void uploadAVersionWithAPolicy() throws Exception {
    suffix = Actors.suffix();
    String creator = "creator-" + suffix;
    adapter = "adapter-" + suffix;
    Actors.Seller seller = Actors.seller(suffix, creator);
    FleetKeyPair fleet = seller.fleet();
    CreatorKeyPair key = seller.key();
    // The policy's noise multiplier Z comes from the signed manifest, as in production: a
    // version's policy is fixed once uploaded (migration V24).
    Actors.upload(
        creator,
        Actors.pack(
            adapter, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B", List.of("bank"), Z.toPlainString()));
    client = Actors.clientOrganisation(em, "client-" + suffix);
    BigDecimal limit = BudgetMaths.rhoLimit(10, 1e-5);
    tokensPerPeriod = limit.divide(BudgetMaths.rhoPerRelease(Z), BudgetMaths.MATH).longValue();
  }

  private Reservation reserve(String id, long tokens) {
    return budgets.reserve(client, adapter, "1.0.0", id, tokens, Instant.now());
  }

  private BigDecimal spent() {
    return (BigDecimal)
        em.createNativeQuery("SELECT rho_spent FROM dp_budget WHERE client_organisation_id = :c")
            .setParameter("c", client)
            .getSingleResult();
  }

  @Test
  void aVersionsPolicy_cannotBeChanged_soTheCopiesInMemoryNeverGoStale() {
    String policy =
        "(SELECT v.dp_policy_id FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id"
            + " WHERE a.adapter_ref = :a)";
    for (String change :
        List.of(
            "UPDATE dp_policy SET noise_multiplier = 2 WHERE id = " + policy,
            "UPDATE adapter_version SET dp_policy_id = (SELECT id FROM dp_policy WHERE id <> "
                + policy
                + " LIMIT 1) WHERE adapter_id = (SELECT id FROM adapter WHERE adapter_ref = :a)",
            "DELETE FROM adapter_version WHERE adapter_id ="
                + " (SELECT id FROM adapter WHERE adapter_ref = :a)")) {
      RuntimeException refused =
          assertThrows(
              RuntimeException.class,
              () ->
                  io.quarkus.narayana.jta.QuarkusTransaction.requiringNew()
                      .run(
                          () ->
                              em.createNativeQuery(change)
                                  .setParameter("a", adapter)
                                  .executeUpdate()),
              change);
      assertTrue(
          String.valueOf(io.tensafe.marketplace.problem.Causes.describe(refused))
              .contains("refused"),
          change);
    }
  }

  @Test
  void limit_isThePolicysEpsilon_byTheConversionEveryPageShows() {
    // The RDP conversion of ρ_limit is the policy's ε (so a budget shows 10, not less), and the
    // looser zCDP one would have granted less.
    double rho = BudgetMaths.rhoLimit(10, 1e-5).doubleValue();
    assertEquals(10, new RdpAccountant(rho).epsilon(1e-5), 1e-9);
    assertTrue(new RdpAccountant(rho).epsilon(1e-5) <= 10);
    assertTrue(rho > 0.1 && rho + 2 * Math.sqrt(rho * Math.log(1e5)) > 10);
    assertEquals(3.76, BudgetMaths.epsilon(BudgetMaths.rhoLimit(3.76, 1e-5), 1e-5), 1e-9);
    // ρ = 1/(2z²) per release (one site, ADR 0035): 124,000 at z = 100.
    assertTrue(tokensPerPeriod > 7_000, "z = 100 allows " + tokensPerPeriod + " releases");
  }

  @Test
  void reserve_fiftyInParallelForATenthEach_exactlyTenServed() throws Exception {
    long tenth = tokensPerPeriod / 10;
    AtomicInteger served = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
      for (int i = 0; i < 50; i++) {
        String id = "par-" + suffix + "-" + i;
        futures.add(
            pool.submit(
                () -> {
                  try {
                    reserve(id, tenth);
                    served.incrementAndGet();
                  } catch (ApiProblem e) {
                    // Nothing is settled: the served ten hold the budget in flight.
                    assertEquals(429, e.status());
                    assertEquals(ProblemKind.PRIVACY_BUDGET_RESERVED.uri(), e.type());
                    assertEquals(2, e.retryAfterSeconds());
                    refused.incrementAndGet();
                  }
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    }
    assertEquals(10, served.get());
    assertEquals(40, refused.get());
    assertTrue(spent().compareTo(BudgetMaths.rhoLimit(10, 1e-5)) <= 0);
    assertTrue(spent().signum() > 0);
  }

  @Test
  void settleAndRefund_returnWhatWasNotUsed_once() {
    BigDecimal before = BigDecimal.ZERO;
    reserve("a-" + suffix, 1000);
    BigDecimal reserved = spent();
    budgets.settle("a-" + suffix, 250);
    BigDecimal settled = spent();
    assertEquals(
        0,
        settled.compareTo(
            reserved.multiply(new BigDecimal("0.25")).setScale(24, java.math.RoundingMode.CEILING)),
        settled + " vs " + reserved);
    budgets.settle("a-" + suffix, 250); // replay: nothing changes
    budgets.refund("a-" + suffix); // after settlement: nothing changes
    assertEquals(0, spent().compareTo(settled));
    reserve("b-" + suffix, 1000);
    budgets.refund("b-" + suffix);
    budgets.refund("b-" + suffix);
    assertEquals(0, spent().compareTo(settled));
    assertTrue(settled.compareTo(before) > 0);
  }

  @Test
  void reserve_replayedRequestId_reservesOnce() {
    reserve("r-" + suffix, 500);
    BigDecimal once = spent();
    reserve("r-" + suffix, 500);
    assertEquals(0, spent().compareTo(once));
  }

  @Test
  void reserve_moreThanTheWholeBudget_is422_notRetryable() {
    ApiProblem problem =
        assertThrows(ApiProblem.class, () -> reserve("big-" + suffix, tokensPerPeriod + 1));
    assertEquals(422, problem.status());
    assertEquals(ProblemKind.PRIVACY_BUDGET_TOO_SMALL.uri(), problem.type());
    assertTrue(problem.getMessage().contains(adapter), problem.getMessage());
    assertTrue(problem.getMessage().contains("can never fit"), problem.getMessage());
  }

  @Test
  void reserve_heldByRequestsInFlight_is429WithAShortRetryAfter_andFitsOnceTheySettle() {
    reserve("held-" + suffix, tokensPerPeriod * 3 / 4);
    ApiProblem problem =
        assertThrows(ApiProblem.class, () -> reserve("waits-" + suffix, tokensPerPeriod / 2));
    assertEquals(429, problem.status());
    assertEquals(ProblemKind.PRIVACY_BUDGET_RESERVED.uri(), problem.type());
    assertEquals(2, problem.retryAfterSeconds());
    budgets.settle("held-" + suffix, tokensPerPeriod / 5);
    reserve("waits-" + suffix, tokensPerPeriod / 2);
  }

  @Test
  void reserve_spent_is429UntilThePeriodResets() {
    reserve("fits-" + suffix, tokensPerPeriod); // exactly the whole budget is allowed
    budgets.settle("fits-" + suffix, tokensPerPeriod);
    ApiProblem problem = assertThrows(ApiProblem.class, () -> reserve("one-more-" + suffix, 1));
    assertEquals(429, problem.status());
    assertEquals(ProblemKind.PRIVACY_BUDGET_EXHAUSTED.uri(), problem.type());
    assertTrue(problem.getMessage().contains("resets at"), problem.getMessage());
    assertTrue(problem.retryAfterSeconds() > 60, "until the period ends");
  }

  @Test
  void settle_moreThanReserved_refused() {
    reserve("s-" + suffix, 10);
    assertThrows(ApiProblem.class, () -> budgets.settle("s-" + suffix, 11));
  }

  private BigDecimal topUps() {
    return (BigDecimal)
        em.createNativeQuery("SELECT rho_top_up FROM dp_budget WHERE client_organisation_id = :c")
            .setParameter("c", client)
            .getSingleResult();
  }

  private String topUpBody(String organisation, double epsilon, String reference) {
    return "{\"organisation\":\""
        + organisation
        + "\",\"adapter\":\""
        + adapter
        + "\",\"epsilon\":"
        + epsilon
        + ",\"reference\":\""
        + reference
        + "\"}";
  }

  @Test
  void topUp_byAnAdmin_raisesAnExhaustedBudgetOnce_audited() {
    given()
        .auth()
        .oauth2(Actors.token("creator-" + suffix, "creator"))
        .post("/api/creator/adapters/" + adapter + "/versions/1.0.0/publish")
        .then()
        .statusCode(200);
    reserve("all-" + suffix, tokensPerPeriod);
    assertThrows(ApiProblem.class, () -> reserve("more-" + suffix, 1000));
    String admin = Actors.token("admin-" + suffix, "admin");
    String body = topUpBody("client-" + suffix, 1, "ticket-" + suffix);
    postJson(admin, "/api/admin/budgets/top-ups", body)
        .then()
        .statusCode(201)
        .body("adapter", equalTo(adapter))
        .body("epsilonLimit", greaterThan(9.5f));
    BigDecimal once = topUps();
    // ε 10 -> 11 at δ 1e-5 is ρ_limit(11) - ρ_limit(10) more, by the policy's own conversion.
    assertEquals(
        BudgetMaths.rhoLimit(11, 1e-5).subtract(BudgetMaths.rhoLimit(10, 1e-5)).doubleValue(),
        once.doubleValue(),
        1e-9);
    postJson(admin, "/api/admin/budgets/top-ups", body).then().statusCode(200);
    assertEquals(0, topUps().compareTo(once), "a replayed reference tops up once");
    reserve("more-" + suffix, 1000);
    given()
        .auth()
        .oauth2(admin)
        .queryParam("organisation", "client-" + suffix)
        .get("/api/admin/budgets")
        .then()
        .statusCode(200)
        .body("[0].adapter", equalTo(adapter))
        .body("[0].spentFraction", greaterThan(0.8f));
    assertEquals(
        1L,
        ((Number)
                em.createNativeQuery(
                        "SELECT count(*) FROM audit_log WHERE action = 'dp-budget.top-up'"
                            + " AND details ->> 'reference' = :r")
                    .setParameter("r", "ticket-" + suffix)
                    .getSingleResult())
            .longValue());

    Actors.clientOrganisation(em, "client2-" + suffix);
    postJson(
            admin,
            "/api/admin/budgets/top-ups",
            topUpBody("client2-" + suffix, 1, "ticket-" + suffix))
        .then()
        .statusCode(409);
    for (String bad :
        List.of(
            topUpBody("client-" + suffix, 0, "t1-" + suffix),
            topUpBody("client-" + suffix, 101, "t2-" + suffix),
            topUpBody("client-" + suffix, 1, "has space"),
            "{\"organisation\":\"client-" + suffix + "\"}")) {
      postJson(admin, "/api/admin/budgets/top-ups", bad)
          .then()
          .statusCode(400)
          .contentType("application/problem+json");
    }
    postJson(admin, "/api/admin/budgets/top-ups", topUpBody("nobody-" + suffix, 1, "t3-" + suffix))
        .then()
        .statusCode(404);
    getAs(Actors.token("client-user-" + suffix, "client"), "/api/client/budgets")
        .then()
        .statusCode(200)
        .body("size()", equalTo(0));
  }
}
