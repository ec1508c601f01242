package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.getAs;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.testing.Actors;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.routing.GateCandidate;
import io.tensafe.tgsp.routing.RouteDecision;
import io.tensafe.tgsp.routing.RoutedText;
import io.tensafe.tgsp.routing.StepGate;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The new user's routing-capture scenario: a second creator lists "mortgage, rate, current, what"
 * at 5,000,000 micro-units per 1k prompt tokens. Stop-words are refused at upload, and a key with a
 * price cap is never routed to, nor served by, an adapter priced above it.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class RoutingCaptureTest {
  FakeNode node;
  GatewayFixture fixture;
  String squatter;

  @BeforeEach
  void anHonestAdapterAndASquatter() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
    squatter = "squat-" + fixture.suffix();
    CreatorKeyPair key = CreatorKeyPair.generate("squatter-" + fixture.suffix(), Actors.RANDOM);
    Actors.registerKey("squatter-" + fixture.suffix(), key);
    given()
        .auth()
        .oauth2(Actors.token("squatter-" + fixture.suffix(), "creator"))
        .contentType("application/octet-stream")
        .body(pack(key, List.of("mortgage", "rate", "current", "what")))
        .post("/api/creator/packages")
        .then()
        .statusCode(422)
        .body("detail", containsString("[current, what]"))
        .body("detail", containsString("stop-words"));
    Actors.upload("squatter-" + fixture.suffix(), pack(key, List.of("mortgage", "rate")));
    given()
        .auth()
        .oauth2(Actors.token("squatter-" + fixture.suffix(), "creator"))
        .post("/api/creator/adapters/" + squatter + "/versions/1.0.0/publish")
        .then()
        .statusCode(200);
  }

  private byte[] pack(CreatorKeyPair key, List<String> keywords) throws Exception {
    return Actors.pack(
        squatter,
        "1.0.0",
        fixture.fleet(),
        key,
        "tensafe/qwen3-tiny",
        keywords,
        "50",
        5_000_000,
        5_000_000);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private String cappedKey() {
    return postJson(
            Actors.token("client-" + fixture.suffix(), "client"),
            "/api/client/api-keys",
            "{\"name\":\"capped\",\"maxPrice\":{\"currency\":\"USD\","
                + "\"promptMicrosPer1kTokens\":10000,\"completionMicrosPer1kTokens\":10000}}")
        .then()
        .statusCode(201)
        .body("details.maxPrice.promptMicrosPer1kTokens", equalTo(10000))
        .extract()
        .path("key");
  }

  private io.restassured.response.Response chat(String key, String model) {
    return given()
        .header("Authorization", "Bearer " + key)
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + model
                + "\",\"messages\":[{\"role\":\"user\",\"content\":"
                + "\"What is the current mortgage rate? "
                // This test's own honest adapter, among the other tests' published ones.
                + fixture.keyword()
                + "\"}],\"max_tokens\":8}")
        .post("/v1/chat/completions");
  }

  @Test
  void aShortListMatchingOneMoreWord_doesNotTakeThePromptFromCheaperHonestAdapters() {
    // The attack: the squatter's two keywords both match, the honest adapter's one; under
    // the old score 1.41 against 0.41, whatever the price. Now a lead of one match is a near tie,
    // and the cheaper adapter wins it. (A key scoped to the two, so that no other test's adapter
    // is a candidate.)
    // The organisation's auto cap above the squatter's price, so that price alone decides.
    String client = Actors.token("client-" + fixture.suffix(), "client");
    Actors.setAutoCap(client, Actors.personalOrganisation(client), 10_000_000)
        .then()
        .statusCode(200);
    String key =
        postJson(
                Actors.token("client-" + fixture.suffix(), "client"),
                "/api/client/api-keys",
                "{\"name\":\"two\",\"adapters\":[\""
                    + fixture.adapterId()
                    + "\",\""
                    + squatter
                    + "\"]}")
            .then()
            .statusCode(201)
            .extract()
            .path("key");
    given()
        .header("Authorization", "Bearer " + key)
        .contentType("application/json")
        .body(
            "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":"
                + "\"What is the current mortgage rate?\"}],\"max_tokens\":8}")
        .post("/v1/chat/completions")
        .then()
        .statusCode(200)
        .body("tensafe.adapter", equalTo(fixture.adapterId()))
        .body("tensafe.route_reason", containsString("lowest price"));
  }

  @Test
  void aCappedKey_isRoutedToTheAdapterItCanAfford_andRefusedTheOneItCannot() {
    String key = cappedKey();
    chat(key, "auto").then().statusCode(200).body("tensafe.adapter", equalTo(fixture.adapterId()));
    chat(key, squatter)
        .then()
        .statusCode(422)
        .contentType("application/problem+json")
        .body("type", containsString("price-above-cap"))
        .body("detail", containsString("5000000"));
  }

  @Test
  void theRoutingCandidates_letAClientThatAloneSeesThePrompt_routeAsTheMarketplaceDoes() {
    String key = cappedKey();
    RoutingResource.Candidates served =
        getAs(key, "/v1/routing/candidates")
            .then()
            .statusCode(200)
            .body("object", equalTo("tensafe.routing.candidates"))
            .extract()
            .as(RoutingResource.Candidates.class);
    List<String> ids = served.candidates().stream().map(GateCandidate::adapterId).toList();
    assertTrue(ids.contains(fixture.adapterId()), ids.toString());
    assertFalse(ids.contains(squatter), "an adapter priced above the key's cap is no candidate");
    String content = "What is the current mortgage rate? " + fixture.keyword();
    RouteDecision onTheClient =
        StepGate.route(
            List.of(new RoutedText("the latest user message", content)),
            served.candidates(),
            served.defaultAdapter(),
            0);
    String onTheMarketplace =
        chat(key, "auto").then().statusCode(200).extract().path("tensafe.adapter");
    assertEquals(onTheMarketplace, onTheClient.adapterId());
    assertEquals(fixture.adapterId(), onTheClient.adapterId());
  }

  @Test
  void theRoutingCandidates_needAnApiKey() {
    given()
        .get("/v1/routing/candidates")
        .then()
        .statusCode(401)
        .contentType("application/problem+json");
  }
}
