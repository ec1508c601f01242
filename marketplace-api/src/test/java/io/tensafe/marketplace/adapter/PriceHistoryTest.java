package io.tensafe.marketplace.adapter;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A scheduled price takes effect at its time and not before; history rows never change. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class PriceHistoryTest {
  @Inject EntityManager em;

  String suffix;
  String creator;

  @BeforeEach
  void uploadAVersion() throws Exception {
    suffix = Actors.suffix();
    creator = "creator-" + suffix;
    Actors.Seller seller = Actors.seller(suffix, creator);
    FleetKeyPair fleet = seller.fleet();
    CreatorKeyPair key = seller.key();
    Actors.upload(
        creator, Actors.pack("adapter-" + suffix, "1.0.0", fleet, key, "Qwen/Qwen2.5-0.5B"));
  }

  private long currentPromptPrice() {
    return getAs(Actors.token(creator, "creator"), "/api/creator/adapters")
        .then()
        .statusCode(200)
        .extract()
        .<Integer>path("items[0].promptMicrosPer1kTokens");
  }

  private io.restassured.response.ValidatableResponse schedule(OffsetDateTime at, long prompt) {
    return schedule(at, prompt, 2000);
  }

  private io.restassured.response.ValidatableResponse schedule(
      OffsetDateTime at, long prompt, long completion) {
    return postJson(
            Actors.token(creator, "creator"),
            "/api/creator/adapters/adapter-" + suffix + "/versions/1.0.0/prices",
            "{\"promptMicrosPer1kTokens\":"
                + prompt
                + ",\"completionMicrosPer1kTokens\":"
                + completion
                + ","
                + "\"effectiveFrom\":\""
                + at
                + "\"}")
        .then();
  }

  @Test
  void scheduledCut_appliesAtItsTimeAndNotBefore() throws Exception {
    OffsetDateTime at = OffsetDateTime.now().plusSeconds(2).truncatedTo(ChronoUnit.MILLIS);
    schedule(at, 1000).statusCode(201);
    assertEquals(1500, currentPromptPrice(), "the new price applied before its time");
    while (OffsetDateTime.now().isBefore(at.plusNanos(200_000_000))) {
      Thread.sleep(100);
    }
    assertEquals(1000, currentPromptPrice(), "the new price did not apply at its time");
  }

  @Test
  void aRise_needsSevenDaysNotice_andTheCatalogueShowsItAhead() {
    OffsetDateTime soon = OffsetDateTime.now().plusMinutes(1).truncatedTo(ChronoUnit.MILLIS);
    schedule(soon, 5_000_000)
        .statusCode(400)
        .body("detail", org.hamcrest.Matchers.containsString("no sooner than 7 days"));
    schedule(soon, 1500, 2001).statusCode(400); // a rise of either price
    OffsetDateTime later = OffsetDateTime.now().plusDays(8).truncatedTo(ChronoUnit.MILLIS);
    schedule(later, 5_000_000).statusCode(201);
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .post("/api/creator/adapters/adapter-" + suffix + "/versions/1.0.0/publish")
        .then()
        .statusCode(200);
    given()
        .auth()
        .oauth2(Actors.token("client-" + suffix, "client"))
        .queryParam("q", "adapter-" + suffix)
        .get("/api/catalog")
        .then()
        .statusCode(200)
        .body("items[0].promptMicrosPer1kTokens", equalTo(1500))
        .body("items[0].nextPromptMicrosPer1kTokens", equalTo(5_000_000))
        .body("items[0].nextPriceFrom", org.hamcrest.Matchers.notNullValue());
  }

  @Test
  void priceInThePast_isRefused() {
    schedule(OffsetDateTime.now().minusMinutes(10), 1000)
        .statusCode(400)
        .body("type", equalTo("https://tensafe.io/problems/validation"))
        .body("error.param", equalTo("effectiveFrom"));
  }

  @Test
  void aCutAtNow_orAMinuteAgo_appliesNow_butARiseAtNowStillNeedsNotice() {
    schedule(OffsetDateTime.now().minusMinutes(1), 1000, 2000).statusCode(201);
    assertEquals(1000, currentPromptPrice());
    postJson(
            Actors.token(creator, "creator"),
            "/api/creator/adapters/adapter-" + suffix + "/versions/1.0.0/prices",
            "{\"promptMicrosPer1kTokens\":900,\"completionMicrosPer1kTokens\":2000}")
        .then()
        .statusCode(201);
    assertEquals(900, currentPromptPrice());
    schedule(OffsetDateTime.now(), 5_000_000)
        .statusCode(400)
        .body("detail", org.hamcrest.Matchers.containsString("no sooner than 7 days"));
  }

  private io.restassured.response.ValidatableResponse schedulePrivate(String privateFields) {
    return postJson(
            Actors.token(creator, "creator"),
            "/api/creator/adapters/adapter-" + suffix + "/versions/1.0.0/prices",
            "{\"promptMicrosPer1kTokens\":1500,\"completionMicrosPer1kTokens\":2000"
                + privateFields
                + "}")
        .then();
  }

  /**
   * The one private price rises (needing notice) when it passes what private sessions paid just
   * before: the private price, else the larger hosted one (2000 here); so dropping a private price
   * below that is a rise too. V19's two private parts are refused by name.
   */
  @Test
  void aPrivatePriceRise_needsNotice_aCutDoesNot_andTheRetiredPartsAreRefused() {
    schedulePrivate(",\"privateMicrosPer1kTokens\":2500")
        .statusCode(400)
        .body("detail", org.hamcrest.Matchers.containsString("no sooner than 7 days"));
    schedulePrivate(",\"privateMicrosPer1kTokens\":1800")
        .statusCode(201)
        .body("privateMicrosPer1kTokens", equalTo(1800));
    schedulePrivate("")
        .statusCode(400)
        .body("detail", org.hamcrest.Matchers.containsString("no sooner than 7 days"));
    schedulePrivate(
            ",\"privatePromptMicrosPer1kTokens\":1000,\"privateCompletionMicrosPer1kTokens\":1200")
        .statusCode(400)
        .body("type", equalTo("https://tensafe.io/problems/validation"))
        .body("error.param", equalTo("privatePromptMicrosPer1kTokens"))
        .body("detail", org.hamcrest.Matchers.containsString("one privateMicrosPer1kTokens"));
    Object stored =
        em.createNativeQuery(
                "SELECT p.private_micros_per_1k_tokens FROM adapter_price p"
                    + " JOIN adapter_version v ON v.id = p.adapter_version_id"
                    + " JOIN adapter a ON a.id = v.adapter_id WHERE a.adapter_ref = ?1"
                    + " ORDER BY p.effective_from DESC LIMIT 1")
            .setParameter(1, "adapter-" + suffix)
            .getSingleResult();
    assertEquals(1800L, ((Number) stored).longValue());
  }

  @Test
  @Transactional
  void priceRows_areAppendOnlyInTheDatabase() {
    Exception e =
        org.junit.jupiter.api.Assertions.assertThrows(
            Exception.class,
            () ->
                em.createNativeQuery("UPDATE adapter_price SET prompt_micros_per_1k_tokens = 1")
                    .executeUpdate());
    assertTrue(
        String.valueOf(e.getCause()).contains("append-only")
            || String.valueOf(e).contains("append-only"),
        e.toString());
  }
}
