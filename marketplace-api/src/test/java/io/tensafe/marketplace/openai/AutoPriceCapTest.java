package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, creators: {@code auto} had no price ceiling by default. The attack: a creator publishes
 * an adapter at 40 times the usual price under keywords clients use, and every {@code auto} request
 * that matches it pays that. Now {@code auto} routes an organisation's requests only within its
 * auto price cap: the platform's default (50,000 / 50,000 micro-units per 1k tokens) until an owner
 * sets its own, shown in {@code /v1/models}; a model the client names is not bound by it.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class AutoPriceCapTest {
  @Inject EntityManager em;

  FakeNode node;
  GatewayFixture fixture;
  String dear;
  String dearKeyword;
  String client;

  @BeforeEach
  void anAdapterAt60000PerThousand() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
    String creator = "creator-" + fixture.suffix();
    CreatorKeyPair key = CreatorKeyPair.generate("acme-" + fixture.suffix(), Actors.RANDOM);
    Actors.registerKey(creator, key);
    dear = "dear-" + fixture.suffix();
    dearKeyword = "dq" + fixture.suffix();
    Actors.upload(
        creator,
        Actors.pack(
            dear,
            "1.0.0",
            fixture.fleet(),
            key,
            "tensafe/qwen3-tiny",
            List.of(dearKeyword),
            "50",
            60_000,
            60_000));
    given()
        .auth()
        .oauth2(Actors.token(creator, "creator"))
        .post("/api/creator/adapters/" + dear + "/versions/1.0.0/publish")
        .then()
        .statusCode(200);
    client = Actors.token("client-" + fixture.suffix(), "client");
  }

  @AfterEach
  void unpublishAndStopTheNode() {
    Actors.unpublish(em, dear);
    node.close();
  }

  private io.restassured.response.Response chat(String model) {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + model
                + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":"
                + "\"Tell me about "
                + dearKeyword
                + " please\"}]}")
        .post("/v1/chat/completions");
  }

  private JsonPath autoCapInModels() {
    return given()
        .header("Authorization", "Bearer " + fixture.apiKey())
        .get("/v1/models")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath()
        .setRootPath("tensafe.auto_price_cap");
  }

  @Test
  void autoStaysWithinTheOrganisationsCap_whichItsOwnerSets_andANamedModelIsNotBound() {
    JsonPath cap = autoCapInModels();
    assertEquals("platform", cap.getString("source"));
    assertEquals(50_000, cap.getLong("prompt_micros_per_1k_tokens"));

    // Above the default ceiling: auto does not route there, whatever the keywords say.
    String refused = chat("auto").then().statusCode(422).extract().path("detail");
    assertTrue(refused.contains("no keyword"), refused);
    // Named, the client chose it: served at its price.
    assertEquals(
        60_000L,
        chat(dear)
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getLong("tensafe.prompt_micros_per_1k_tokens"));

    // The organisation's owner raises its ceiling: auto routes there, and says where and at what.
    String org = Actors.personalOrganisation(client);
    String source =
        Actors.setAutoCap(client, org, 100_000).then().statusCode(200).extract().path("source");
    assertEquals("organisation", source);
    assertEquals("organisation", autoCapInModels().getString("source"));
    assertEquals(100_000, autoCapInModels().getLong("prompt_micros_per_1k_tokens"));
    JsonPath served = chat("auto").then().statusCode(200).extract().jsonPath();
    assertEquals(dear, served.getString("tensafe.adapter"));
    assertEquals(60_000L, served.getLong("tensafe.prompt_micros_per_1k_tokens"));
    assertEquals("USD", served.getString("tensafe.currency"));

    // A cap that is not a price is refused, and changes nothing.
    given()
        .auth()
        .oauth2(client)
        .contentType("application/json")
        .body("{\"currency\":\"usd\",\"promptMicrosPer1kTokens\":0}")
        .put("/api/organisations/" + org + "/auto-cap")
        .then()
        .statusCode(400)
        .contentType("application/problem+json");
    assertEquals(100_000, autoCapInModels().getLong("prompt_micros_per_1k_tokens"));
  }

  @Test
  void onlyAnOwnerSetsTheCap_andAnOutsiderSeesNoOrganisation() {
    String outsider = Actors.token("outsider-" + fixture.suffix(), "client");
    String org = Actors.personalOrganisation(client);
    Actors.setAutoCap(outsider, org, 9_000_000).then().statusCode(404);
    assertEquals("platform", autoCapInModels().getString("source"));
  }

  @Test
  void privateModesAuto_staysWithinTheCap_atThePricePrivateSessionsPay() {
    // The attack: hosted prices within the cap, the private price (what a private session pays
    // per token) at 60,000. A private client runs auto itself over /v1/routing/candidates and
    // opens its session by name, which no auto cap binds: the candidates must leave it out.
    QuarkusTransaction.requiringNew()
        .run(
            () ->
                em.createNativeQuery(
                        """
                        INSERT INTO adapter_price (adapter_version_id, currency,
                            prompt_micros_per_1k_tokens, completion_micros_per_1k_tokens,
                            private_micros_per_1k_tokens, effective_from, created_at, created_by)
                        SELECT v.id, 'USD', 1500, 2000, 60000, now(), now(), v.uploaded_by
                        FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id
                        WHERE a.adapter_ref = :a AND v.version = '1.0.0'
                        """)
                    .setParameter("a", fixture.adapterId())
                    .executeUpdate());
    List<String> ids =
        given()
            .header("Authorization", "Bearer " + fixture.apiKey())
            .get("/v1/routing/candidates")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getList("candidates.adapterId");
    assertTrue(
        !ids.contains(fixture.adapterId()),
        "a candidate whose private price is above the auto cap: " + ids);
    assertTrue(!ids.contains(dear), "a candidate whose hosted price is above the auto cap");

    // The owner raises the cap above it: a candidate again.
    Actors.setAutoCap(client, Actors.personalOrganisation(client), 100_000).then().statusCode(200);
    ids =
        given()
            .header("Authorization", "Bearer " + fixture.apiKey())
            .get("/v1/routing/candidates")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath()
            .getList("candidates.adapterId");
    assertTrue(ids.contains(fixture.adapterId()), ids.toString());
  }
}
