package io.tensafe.marketplace.billing;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The charge ledger on real PostgreSQL: price snapshots, exact splits, idempotency, sales. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class ChargeLedgerTest {
  @Inject ChargeLedger ledger;
  @Inject EntityManager em;

  String suffix;
  String creator;
  String adapter;
  UUID client;
  FleetKeyPair fleet;
  CreatorKeyPair key;

  @BeforeEach
  void uploadAVersionAndMakeAClient() throws Exception {
    suffix = Actors.suffix();
    creator = "creator-" + suffix;
    adapter = "adapter-" + suffix;
    Actors.Seller seller = Actors.seller(suffix, creator);
    fleet = seller.fleet();
    key = seller.key();
    Actors.upload(creator, Actors.pack(adapter, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B"));
    client = Actors.clientOrganisation(em, "client-" + suffix);
  }

  private NewCharge charge(String requestId, long prompt, long completion, OffsetDateTime at) {
    return new NewCharge(requestId, client, null, adapter, "1.0.0", prompt, completion, at, null);
  }

  private static OffsetDateTime now() {
    return OffsetDateTime.now(ZoneOffset.UTC);
  }

  private long rows(String requestPrefix) {
    return ((Number)
            em.createNativeQuery("SELECT count(*) FROM charge WHERE request_id LIKE :p")
                .setParameter("p", requestPrefix + "%")
                .getSingleResult())
        .longValue();
  }

  @Test
  void record_pricesAtTheVersionsPriceAndSplitsExactly() {
    ChargeView view = ledger.record(charge("r-" + suffix, 1234, 567, now()));
    // Actors.pack prices: see the manifest it writes; the split must add up whatever they are.
    long amount =
        (1234 * view.promptMicrosPer1kTokens() + 567 * view.completionMicrosPer1kTokens() + 500)
            / 1000;
    long creator = amount * (10_000 - 2500) / 10_000;
    assertEquals(
        List.of(amount, creator, amount - creator),
        List.of(view.amountMicros(), view.creatorMicros(), view.platformMicros()));
    assertEquals(2500, view.takeBasisPoints());
    assertEquals(adapter, view.adapterId());
  }

  @Test
  void record_replayedFiveTimes_billedOnce() {
    String id = "replay-" + suffix;
    ChargeView first = ledger.record(charge(id, 100, 200, now()));
    for (int i = 0; i < 4; i++) {
      assertEquals(first, ledger.record(charge(id, 100, 200, now())));
    }
    assertEquals(1, rows(id));
  }

  @Test
  void record_sameIdDifferentUsage_conflict() {
    String id = "clash-" + suffix;
    ledger.record(charge(id, 100, 200, now()));
    ApiProblem problem =
        assertThrows(ApiProblem.class, () -> ledger.record(charge(id, 100, 201, now())));
    assertEquals(409, problem.status());
    assertEquals(1, rows(id));
  }

  @Test
  void record_concurrentReplaysAndDistinctRequests_eachBilledOnce() throws Exception {
    String prefix = "conc-" + suffix + "-";
    List<Future<ChargeView>> futures = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
      for (int i = 0; i < 40; i++) {
        String id = prefix + (i % 10); // each of 10 requests reported 4 times, concurrently
        long tokens = 10 + (i % 10);
        futures.add(pool.submit(() -> ledger.record(charge(id, tokens, tokens * 3, now()))));
      }
      for (Future<ChargeView> f : futures) {
        f.get();
      }
    }
    assertEquals(10, rows(prefix));
    Object[] sums =
        (Object[])
            em.createNativeQuery(
                    "SELECT sum(amount_micros), sum(creator_micros + platform_micros),"
                        + " sum(prompt_tokens) FROM charge WHERE request_id LIKE :p")
                .setParameter("p", prefix + "%")
                .getSingleResult();
    assertEquals(((Number) sums[0]).longValue(), ((Number) sums[1]).longValue());
    assertEquals(10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19, ((Number) sums[2]).longValue());
  }

  @Test
  void record_beforeTheVersionHadAPrice_refused() {
    ApiProblem problem =
        assertThrows(
            ApiProblem.class,
            () -> ledger.record(charge("early-" + suffix, 1, 1, now().minusDays(3))));
    assertEquals(400, problem.status());
  }

  @Test
  void record_adapterTakeOverride_applies() {
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "UPDATE adapter SET platform_take_basis_points = 1000 WHERE adapter_ref = :a")
                    .setParameter("a", adapter)
                    .executeUpdate());
    assertEquals(1000, ledger.record(charge("take-" + suffix, 500, 500, now())).takeBasisPoints());
  }

  @Test
  void ledgerRows_areAppendOnly() {
    ledger.record(charge("frozen-" + suffix, 1, 1, now()));
    assertThrows(
        Exception.class,
        () ->
            QuarkusTransaction.requiringNew()
                .run(
                    () ->
                        em.createNativeQuery(
                                "UPDATE charge SET amount_micros = 0 WHERE request_id = :r")
                            .setParameter("r", "frozen-" + suffix)
                            .executeUpdate()));
  }

  @Test
  void catalogue_sortByPopularity_putsTheMostBilledFirst() throws Exception {
    String newer = "newer-" + suffix;
    Actors.upload(creator, Actors.pack(newer, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B"));
    for (String id : List.of(adapter, newer)) {
      given()
          .auth()
          .oauth2(Actors.token(creator, "creator"))
          .post("/api/creator/adapters/" + id + "/versions/1.0.0/publish")
          .then()
          .statusCode(200);
    }
    for (int i = 0; i < 3; i++) {
      ledger.record(charge("pop-" + suffix + "-" + i, 10, 10, now()));
    }
    List<String> popular = catalogue("popular");
    List<String> newest = catalogue("newest");
    assertTrue(popular.indexOf(adapter) < popular.indexOf(newer), popular.toString());
    assertTrue(newest.indexOf(newer) < newest.indexOf(adapter), newest.toString());
  }

  private List<String> catalogue(String sort) {
    return given()
        .auth()
        .oauth2(Actors.token("client-" + suffix, "client"))
        .queryParam("q", suffix)
        .queryParam("sort", sort)
        .get("/api/catalog")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath()
        .getList("items.adapterId");
  }

  @Test
  void creatorSales_sumTheLedgerForTheCreatorOnly() {
    long amount = 0;
    long creatorShare = 0;
    for (int i = 0; i < 5; i++) {
      ChargeView v = ledger.record(charge("sale-" + suffix + "-" + i, 100 * i, 50 * i, now()));
      amount += v.amountMicros();
      creatorShare += v.creatorMicros();
    }
    var response =
        getAs(Actors.token(creator, "creator"), "/api/creator/sales")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    assertEquals(adapter, response.getString("lines.items[0].adapterId"));
    assertEquals(5L, response.getLong("lines.items[0].requests"));
    assertEquals(amount, response.getLong("lines.items[0].amountMicros"));
    assertEquals(creatorShare, response.getLong("lines.items[0].creatorMicros"));
    assertEquals(amount, response.getLong("totals[0].amountMicros"));
    assertEquals(
        amount,
        response.getLong("totals[0].creatorMicros") + response.getLong("totals[0].platformMicros"));
    getAs(Actors.token("other-" + suffix, "creator"), "/api/creator/sales")
        .then()
        .statusCode(200)
        .body("lines.total", org.hamcrest.Matchers.equalTo(0));
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .queryParam("from", "2026-11-02T00:00:00Z")
        .queryParam("to", "2026-11-01T00:00:00Z")
        .get("/api/creator/sales")
        .then()
        .statusCode(400)
        .contentType("application/problem+json");
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .queryParam("from", "yesterday")
        .get("/api/creator/sales")
        .then()
        .statusCode(400);
    assertTrue(amount > 0);
    var all =
        given()
            .auth()
            .oauth2(Actors.token("admin-" + suffix, "admin"))
            .queryParam("size", 200)
            .get("/api/admin/sales")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    assertTrue(all.getList("lines.items.adapterId").contains(adapter));
  }
}
