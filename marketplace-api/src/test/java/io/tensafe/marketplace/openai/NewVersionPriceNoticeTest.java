package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.path.json.JsonPath;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, creators: a new version is a price rise without notice. The attack: a creator whose
 * adapter serves at 1500 / 2000 micro-units per 1k prompt / completion tokens publishes a version
 * at 100 times that; the very next unversioned and {@code auto} requests were billed at 100 times.
 * Now a version priced above the one it replaces serves requests named without a version, and
 * {@code auto}, only after the price-rise notice (7 days), and the catalogue says from when; named
 * with its version it serves at once, at its own price (the client named it). One at the same or a
 * lower price takes over at once.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class NewVersionPriceNoticeTest {
  @Inject EntityManager em;

  FakeNode node;
  GatewayFixture fixture;
  String creator;
  CreatorKeyPair key;

  @BeforeEach
  void anAdapterServingAt1500And2000() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
    creator = "creator-" + fixture.suffix();
    key = CreatorKeyPair.generate("acme-" + fixture.suffix(), Actors.RANDOM);
    Actors.registerKey(creator, key);
  }

  /**
   * Unpublishes this test's adapter and stops its node: left published, a version cheaper than
   * other tests' adapters could win their {@code auto} prompts and be sent to a node that is gone.
   */
  @AfterEach
  void unpublishAndStopTheNode() {
    Actors.unpublish(em, fixture.adapterId());
    node.close();
  }

  private void publish(String version, long prompt, long completion) throws Exception {
    Actors.upload(
        creator,
        Actors.pack(
            fixture.adapterId(),
            version,
            fixture.fleet(),
            key,
            "tensafe/qwen3-tiny",
            List.of(fixture.keyword()),
            "50",
            prompt,
            completion));
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .post("/api/creator/adapters/" + fixture.adapterId() + "/versions/" + version + "/publish")
        .then()
        .statusCode(200);
  }

  /** A completion for {@code model}, answered 200; its {@code tensafe} block. */
  private JsonPath served(String model) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + model
                + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":"
                + "\"Tell me about "
                + fixture.keyword()
                + " please\"}]}")
        .post("/v1/chat/completions")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath()
        .setRootPath("tensafe");
  }

  private static void assertServedBy(JsonPath t, String version, long prompt, long completion) {
    assertEquals(version, t.getString("version"), "served by the wrong version");
    assertEquals(prompt, t.getLong("prompt_micros_per_1k_tokens"), "billed at the wrong price");
    assertEquals(completion, t.getLong("completion_micros_per_1k_tokens"));
  }

  /** The billed charge of request {@code id}: its prompt price, read from the ledger. */
  private long chargedPromptPrice(String requestId) {
    return QuarkusTransaction.requiringNew()
        .call(
            () ->
                ((Number)
                        em.createNativeQuery(
                                "SELECT prompt_micros_per_1k_tokens FROM charge"
                                    + " WHERE request_id = :r")
                            .setParameter("r", requestId)
                            .getSingleResult())
                    .longValue());
  }

  @Test
  void aVersionAt100TimesThePrice_servesUnversionedAndAutoOnlyAfterTheNotice() throws Exception {
    publish("1.0.1", 150_000, 200_000);

    // The next unversioned and auto requests: the previous version, at its price.
    JsonPath unversioned = served(fixture.adapterId());
    assertServedBy(unversioned, "1.0.0", 1500, 2000);
    assertEquals(1500, chargedPromptPrice(unversioned.getString("request_id")));
    JsonPath auto = served("auto");
    assertEquals(fixture.adapterId(), auto.getString("adapter"));
    assertServedBy(auto, "1.0.0", 1500, 2000);

    // Named with its version, the client asked for it: its own price, at once.
    assertServedBy(served(fixture.adapterId() + "@1.0.1"), "1.0.1", 150_000, 200_000);

    // Clients are told, in the catalogue, from when the new version serves unversioned requests.
    JsonPath catalogue =
        given()
            .auth()
            .oauth2(Actors.token("client-" + fixture.suffix(), "client"))
            .queryParam("q", fixture.adapterId())
            .get("/api/catalog")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    List<String> versions = catalogue.getList("items.version");
    int newer = versions.indexOf("1.0.1");
    String from = catalogue.getString("items[" + newer + "].newestFrom");
    assertNotNull(from, "the catalogue does not say when 1.0.1 serves unversioned requests");
    OffsetDateTime newestFrom = OffsetDateTime.parse(from);
    assertTrue(
        newestFrom.isAfter(OffsetDateTime.now().plus(Duration.ofDays(7)).minusMinutes(5)),
        "1.0.1 takes over before the seven days' notice: " + newestFrom);
    String older = catalogue.getString("items[" + versions.indexOf("1.0.0") + "].newestFrom");
    assertTrue(OffsetDateTime.parse(older).isBefore(OffsetDateTime.now()), older);

    // The notice ends (moved into the past here): the new version serves at its price (auto too,
    // within an auto price cap its organisation raised above it).
    String client = Actors.token("client-" + fixture.suffix(), "client");
    Actors.setAutoCap(client, Actors.personalOrganisation(client), 1_000_000)
        .then()
        .statusCode(200);
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        "UPDATE adapter_version SET newest_from = now() - interval '1 second'"
                            + " WHERE version = '1.0.1' AND adapter_id ="
                            + " (SELECT id FROM adapter WHERE adapter_ref = :a)")
                    .setParameter("a", fixture.adapterId())
                    .executeUpdate());
    assertServedBy(served(fixture.adapterId()), "1.0.1", 150_000, 200_000);
    assertServedBy(served("auto"), "1.0.1", 150_000, 200_000);
  }

  @Test
  void aVersionAtALowerPrice_takesOverAtOnce() throws Exception {
    publish("1.0.1", 1000, 2000);
    assertServedBy(served(fixture.adapterId()), "1.0.1", 1000, 2000);
    assertServedBy(served("auto"), "1.0.1", 1000, 2000);
  }

  /**
   * Issue 51: unpublishing is a price change too. A cheaper 1.0.1 took over at once; unpublishing
   * it handed unversioned requests straight back to the dearer 1.0.0. Now 1.0.0 serves them only
   * after the notice; meanwhile they are refused (nothing billed), and 1.0.0 named with its version
   * still serves.
   */
  @Test
  void unpublishingACheaperNewestVersion_doesNotRaiseThePriceWithoutNotice() throws Exception {
    publish("1.0.1", 1000, 2000);
    assertServedBy(served(fixture.adapterId()), "1.0.1", 1000, 2000);
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .post("/api/creator/adapters/" + fixture.adapterId() + "/versions/1.0.1/unpublish")
        .then()
        .statusCode(200);
    io.restassured.response.Response refused =
        given()
            .header("Authorization", "Bearer " + fixture.apiKey())
            .contentType("application/json")
            .body(
                "{\"model\":\""
                    + fixture.adapterId()
                    + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
            .post("/v1/chat/completions");
    assertTrue(
        refused.statusCode() >= 400 && refused.statusCode() < 500,
        refused.statusCode() + " " + refused.asString());
    Object newestFrom =
        QuarkusTransaction.requiringNew()
            .call(
                () ->
                    em.createNativeQuery(
                            "SELECT newest_from FROM adapter_version WHERE version = '1.0.0'"
                                + " AND adapter_id = (SELECT id FROM adapter WHERE adapter_ref = :a)")
                        .setParameter("a", fixture.adapterId())
                        .getSingleResult());
    OffsetDateTime from =
        newestFrom instanceof OffsetDateTime o
            ? o
            : ((java.time.Instant) newestFrom).atOffset(java.time.ZoneOffset.UTC);
    assertTrue(
        from.isAfter(OffsetDateTime.now().plus(Duration.ofDays(7)).minusMinutes(5)),
        "1.0.0 takes unversioned requests back before the notice: " + from);
    assertServedBy(served(fixture.adapterId() + "@1.0.0"), "1.0.0", 1500, 2000);
  }

  @Test
  void aVersionDearerInOnePriceOnly_stillWaitsForTheNotice() throws Exception {
    // Cheaper prompts do not make up for dearer completions: any price above is a rise.
    publish("1.0.1", 1000, 2001);
    assertEquals("1.0.0", served(fixture.adapterId()).getString("version"));
  }

  @Test
  void aDraftsRiseScheduledWithinTheNotice_makesItsPublicationARise() throws Exception {
    // Uploaded at the same price, a rise scheduled while it was a draft (no client could see it)
    // would apply a day after it took over: the rise counts at publication.
    Actors.upload(
        creator,
        Actors.pack(
            fixture.adapterId(),
            "1.0.1",
            fixture.fleet(),
            key,
            "tensafe/qwen3-tiny",
            List.of(fixture.keyword()),
            "50",
            1500,
            2000));
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        """
                        INSERT INTO adapter_price (adapter_version_id, currency,
                            prompt_micros_per_1k_tokens, completion_micros_per_1k_tokens,
                            effective_from, created_at, created_by)
                        SELECT v.id, 'USD', 150000, 200000, now() + interval '1 day', now(),
                               v.uploaded_by
                        FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
                        WHERE a.adapter_ref = :a AND v.version = '1.0.1'
                        """)
                    .setParameter("a", fixture.adapterId())
                    .executeUpdate());
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .post("/api/creator/adapters/" + fixture.adapterId() + "/versions/1.0.1/publish")
        .then()
        .statusCode(200)
        .body("state", equalTo("published"));
    assertEquals("1.0.0", served(fixture.adapterId()).getString("version"));
  }

  @Test
  void unpublishingTheServingVersionFirst_doesNotSkipTheNotice() throws Exception {
    // The attack: take the serving version down, then publish one at 100 times the price while
    // no version serves: it replaced nothing, and served unversioned requests at once.
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .post("/api/creator/adapters/" + fixture.adapterId() + "/versions/1.0.0/unpublish")
        .then()
        .statusCode(200);
    Actors.upload(
        creator,
        Actors.pack(
            fixture.adapterId(),
            "1.0.1",
            fixture.fleet(),
            key,
            "tensafe/qwen3-tiny",
            List.of(fixture.keyword()),
            "50",
            150_000,
            200_000));
    String from =
        given()
            .auth()
            .oauth2(Actors.token(creator, "creator"))
            .post("/api/creator/adapters/" + fixture.adapterId() + "/versions/1.0.1/publish")
            .then()
            .statusCode(200)
            .extract()
            .path("newestFrom");
    assertNotNull(from, "the publish answer does not say when 1.0.1 serves unversioned requests");
    assertTrue(
        OffsetDateTime.parse(from)
            .isAfter(OffsetDateTime.now().plus(Duration.ofDays(7)).minusMinutes(5)),
        "1.0.1 takes over before the seven days' notice: " + from);
    // Until then no version serves unversioned requests: not found, rather than 100 times.
    given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + fixture.adapterId()
                + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
        .post("/v1/chat/completions")
        .then()
        .statusCode(404);
    assertServedBy(served(fixture.adapterId() + "@1.0.1"), "1.0.1", 150_000, 200_000);
  }
}
