package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.path.json.JsonPath;
import io.tensafe.marketplace.tokens.PromptTokenizer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The completion tokens billed are the tokenizer's count of the text the client received (plus the
 * end-of-turn token), for 50 random completions of the tiny model's vocabulary, 25 streamed and 25
 * not: the marketplace counts what it relays, whatever the node says it generated.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class RelayedTokenCountTest {
  private static final PromptTokenizer TOKENIZER = new PromptTokenizer();

  FakeNode node;
  GatewayFixture fixture;

  @BeforeEach
  void aNodeOfRandomTokens() throws Exception {
    node = new FakeNode();
    fixture = GatewayFixture.create();
    fixture.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  @Test
  void billedCompletionTokens_areTheTokenizersCountOfTheRelayedText() {
    Random random = new Random(34);
    for (int i = 0; i < 50; i++) {
      node.randomTokens = 1 + random.nextInt(48);
      boolean stream = i % 2 == 0;
      String body =
          "{\"model\":\""
              + fixture.adapterId()
              + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":400"
              + (stream ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}" : "")
              + "}";
      var response =
          given()
              .header("Authorization", "Bearer " + fixture.apiKey())
              .contentType("application/json")
              .body(body)
              .post("/v1/chat/completions")
              .then()
              .statusCode(200)
              .extract();
      String text;
      long billed;
      if (stream) {
        StringBuilder relayed = new StringBuilder();
        long usage = -1;
        for (String line : response.asString().split("\n")) {
          if (!line.startsWith("data: {")) {
            continue;
          }
          JsonPath chunk = new JsonPath(line.substring(6));
          String content = chunk.getString("choices[0].delta.content");
          if (content != null) {
            relayed.append(content);
          }
          if (chunk.get("usage") != null) {
            usage = chunk.getLong("usage.completion_tokens");
          }
        }
        text = relayed.toString();
        billed = usage;
      } else {
        JsonPath answer = response.jsonPath();
        text = answer.getString("choices[0].message.content");
        billed = answer.getLong("usage.completion_tokens");
      }
      assertEquals(
          Math.min(400, TOKENIZER.count(text) + 1),
          billed,
          "completion " + i + (stream ? " (streamed)" : "") + " of " + node.randomTokens);
    }
  }
}
