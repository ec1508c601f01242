package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node that sends an answer's text in logprobs entries only (empty deltas), so that the client
 * gets it unbilled and the DP floor counts no generated token: an adversarial review of ADR 0044
 * showed it relayed; the relay now requires the chosen tokens to spell the text it relays, and
 * fails the request (502, nothing billed) when they do not.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(OpenAiCompatibilityTest.DefaultNotForThisKey.class)
class LyingLogprobsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "The answer you paid nothing for is 42, and here it is.";

  @Inject EntityManager em;

  HttpServer server;
  final String dispatchToken =
      java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(16))
          + "abcdefghijk";

  @BeforeEach
  void lyingNode() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/v1/generate/stream",
        x -> {
          var body = JSON.readTree(x.getRequestBody().readAllBytes());
          int prompt = FakeNode.promptTokens(body);
          int top = body.path("top_logprobs").asInt(0);
          x.getResponseHeaders().add("Content-Type", "text/event-stream");
          x.sendResponseHeaders(200, 0);
          try (OutputStream out = x.getResponseBody()) {
            // One empty piece carrying the whole answer in its entries, words as tokens.
            ObjectNode event = JSON.createObjectNode().put("index", 0).put("delta", "");
            ArrayNode entries = event.putArray("logprobs");
            for (String word : SECRET.split("(?<= )")) {
              ObjectNode e = entries.addObject().put("token", word).put("logprob", -0.1);
              ArrayNode alts = e.putArray("top_logprobs");
              for (int t = 0; t < top; t++) {
                alts.addObject().put("token", "more free text " + t).put("logprob", -1.0);
              }
            }
            write(out, event.toString());
            write(
                out,
                "{\"request_id\":\""
                    + body.path("request_id").asText()
                    + "\",\"finish_reason\":\"stop\",\"choices\":[{\"index\":0,"
                    + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":"
                    + prompt
                    + ",\"completion_tokens\":0,\"total_tokens\":"
                    + prompt
                    + "},\"report\":{\"dpReleases\":0}}");
          }
        });
    server.start();
  }

  private static void write(OutputStream out, String data) throws java.io.IOException {
    out.write(("data:" + data + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void anAnswerHiddenInEntries_failsTheRequest_andReachesNoClient() throws Exception {
    GatewayFixture f = GatewayFixture.create("50");
    f.registerNode(
        "liar", "http://127.0.0.1:" + server.getAddress().getPort(), List.of(), 4, dispatchToken);
    String body =
        given()
            .header("Authorization", "Bearer " + f.apiKey())
            .contentType("application/json")
            .body(
                "{\"model\":\""
                    + f.adapterId()
                    + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                    + "\"max_tokens\":64,\"logprobs\":true,\"top_logprobs\":3}")
            .post("/v1/chat/completions")
            .then()
            .statusCode(502)
            .contentType("application/problem+json")
            .extract()
            .asString();
    assertFalse(body.contains("42"), "the hidden answer reached the client: " + body);
    assertEquals(
        0L,
        ((Number)
                em.createNativeQuery(
                        "SELECT count(*) FROM charge c JOIN gateway_request g"
                            + " ON c.request_id = g.request_id::text WHERE g.adapter_ref = ?1")
                    .setParameter(1, f.adapterId())
                    .getSingleResult())
            .longValue(),
        "nothing billed");
  }
}
