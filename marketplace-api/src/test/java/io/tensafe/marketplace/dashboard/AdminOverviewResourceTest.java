package io.tensafe.marketplace.dashboard;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.path.json.JsonPath;
import io.tensafe.marketplace.billing.ChargeLedger;
import io.tensafe.marketplace.billing.NewCharge;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class AdminOverviewResourceTest {
  @Inject ChargeLedger ledger;
  @Inject EntityManager em;

  private static JsonPath overview(String admin) {
    return getAs(Actors.token(admin, "admin"), "/api/admin/overview?days=3")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath();
  }

  /** Today's USD day of the series, as {requests, promptTokens, completionTokens, amount}. */
  private static long[] todayUsd(JsonPath o) {
    String today = LocalDate.now(ZoneOffset.UTC).toString();
    Map<String, Object> day =
        o.getMap("days.find { it.date == '" + today + "' && it.currency == 'USD' }");
    if (day == null) {
      return new long[4];
    }
    return new long[] {
      ((Number) day.get("requests")).longValue(),
      ((Number) day.get("promptTokens")).longValue(),
      ((Number) day.get("completionTokens")).longValue(),
      ((Number) day.get("amountMicros")).longValue()
    };
  }

  @Test
  void overview_addsTodaysChargesToTheSeriesAndTheRates_exactly() throws Exception {
    String suffix = Actors.suffix();
    String admin = "admin-" + suffix;
    FleetKeyPair fleet = FleetKeyPair.generate("fleet-" + suffix, Actors.RANDOM);
    CreatorKeyPair key = CreatorKeyPair.generate("ov-" + suffix, Actors.RANDOM);
    Actors.registerFleet(admin, fleet);
    Actors.registerKey("creator-" + suffix, key);
    String adapter = "overview-" + suffix;
    Actors.upload(
        "creator-" + suffix, Actors.pack(adapter, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B"));
    UUID org = Actors.clientOrganisation(em, "ov-client-" + suffix);

    JsonPath before = overview(admin);
    long[] was = todayUsd(before);
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    long amount = 0;
    for (int i = 0; i < 3; i++) {
      amount +=
          ledger
              .record(
                  new NewCharge(
                      "ov-" + suffix + "-" + i, org, null, adapter, "1.0.0", 1000, 500, now, null))
              .amountMicros();
    }
    JsonPath after = overview(admin);
    long[] is = todayUsd(after);
    assertEquals(was[0] + 3, is[0]);
    assertEquals(was[1] + 3000, is[1]);
    assertEquals(was[2] + 1500, is[2]);
    assertEquals(was[3] + amount, is[3]);
    // The rates cover the last 5 minutes, which now hold at least these 3 requests and 4,500
    // tokens (older charges may age out between the two reads, so no exact difference).
    assertTrue(after.getDouble("requestsPerSecond") >= 3 / 300.0);
    assertTrue(after.getDouble("tokensPerSecond") >= 4500 / 300.0);
    assertTrue(after.getLong("totalNodes") >= after.getLong("healthyNodes"));
    assertTrue(after.getDouble("gateway.errorRate") >= 0);
  }

  @Test
  void overview_isForAdminsOnly_andRefusesABadRange() {
    getAs(Actors.token("creator-" + Actors.suffix(), "creator"), "/api/admin/overview")
        .then()
        .statusCode(403);
    given().get("/api/admin/overview").then().statusCode(401);
    getAs(Actors.token("admin-" + Actors.suffix(), "admin"), "/api/admin/overview?days=91")
        .then()
        .statusCode(400)
        .contentType("application/problem+json");
  }
}
