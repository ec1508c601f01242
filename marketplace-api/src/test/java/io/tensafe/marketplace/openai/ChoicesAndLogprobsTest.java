package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.path.json.JsonPath;
import io.tensafe.marketplace.tokens.PromptTokenizer;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code n} choices and {@code logprobs} through the gateway to a {@link FakeNode} (ADR 0044):
 * every choice relayed and billed, the DP reservation made for all of them and settled to one
 * prompt and each choice's tokens, a refusal that reserves nothing, and OpenAI's logprobs shape.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(OpenAiCompatibilityTest.DefaultNotForThisKey.class)
class ChoicesAndLogprobsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PromptTokenizer TOKENIZER = new PromptTokenizer();
  private static final String HI = "[{\"role\":\"user\",\"content\":\"hi\"}]";

  @Inject EntityManager em;

  @io.quarkus.test.common.http.TestHTTPResource("/v1")
  java.net.URI base;

  FakeNode node;

  @BeforeEach
  void aNode() throws Exception {
    node = new FakeNode();
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private static io.restassured.response.Response post(GatewayFixture f, String extra) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/json")
        .body("{\"model\":\"" + f.adapterId() + "\",\"messages\":" + HI + extra + "}")
        .post("/v1/chat/completions");
  }

  private GatewayFixture served(String noise) throws Exception {
    GatewayFixture f = GatewayFixture.create(noise);
    f.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
    return f;
  }

  @Test
  void threeChoices_eachRelayedAndBilled_reservedForAllAndSettledToOnePrompt() throws Exception {
    GatewayFixture f = served("50");
    JsonPath answer =
        post(f, ",\"max_tokens\":16,\"n\":3").then().statusCode(200).extract().jsonPath();
    assertEquals(3, answer.getList("choices").size());
    for (int i = 0; i < 3; i++) {
      assertEquals(i, answer.getInt("choices[" + i + "].index"));
      assertEquals("Hello", answer.getString("choices[" + i + "].message.content"));
      assertEquals("stop", answer.getString("choices[" + i + "].finish_reason"));
    }
    // Each choice: its relayed text's tokens and the end-of-turn token it stopped on.
    int perChoice = TOKENIZER.count("Hello") + 1;
    int prompt = FakeNode.userPromptTokens("hi");
    assertEquals(3 * perChoice, answer.getInt("usage.completion_tokens"));
    assertEquals(prompt, answer.getInt("usage.prompt_tokens"));
    String id = answer.getString("tensafe.request_id");
    Ledgers ledgers = new Ledgers(em);
    assertEquals(List.of((long) prompt, 3L * perChoice), ledgers.charged(id));
    // Reserved for the prompt and three choices of max_tokens (one LoRA input: 1 release a token).
    assertEquals(prompt + 3 * 16, ledgers.releases(id, "reserve"));
    // Settled to the node's count: the prompt once, each choice's tokens but its last.
    assertEquals(prompt + 3 * perChoice - 3, ledgers.releases(id, "settle"));
  }

  @Test
  void threeChoices_streamed_eachChunkNamesItsChoiceAndEachChoiceEnds() throws Exception {
    GatewayFixture f = served("50");
    String events =
        post(
                f,
                ",\"max_tokens\":16,\"n\":3,\"stream\":true,\"stream_options\":{\"include_usage\":true}")
            .then()
            .statusCode(200)
            .extract()
            .asString();
    StringBuilder[] content = {new StringBuilder(), new StringBuilder(), new StringBuilder()};
    List<Integer> finished = new ArrayList<>();
    JsonNode usage = null;
    for (String line : events.split("\n")) {
      if (!line.startsWith("data: ") || line.equals("data: [DONE]")) {
        continue;
      }
      JsonNode chunk = JSON.readTree(line.substring(6));
      if (chunk.has("usage")) {
        usage = chunk.get("usage");
      }
      for (JsonNode c : chunk.path("choices")) {
        int index = c.path("index").asInt();
        content[index].append(c.path("delta").path("content").asText(""));
        if (c.path("finish_reason").isTextual()) {
          finished.add(index);
        }
      }
    }
    for (StringBuilder c : content) {
      assertEquals("Hello", c.toString());
    }
    assertEquals(List.of(0, 1, 2), finished);
    assertEquals(3 * (TOKENIZER.count("Hello") + 1), usage.path("completion_tokens").asInt());
  }

  @Test
  void budgetForOneChoiceButNotThree_threeAreRefusedWithNothingReserved() throws Exception {
    GatewayFixture f = served("15");
    // A probe of two tokens: its reservation gives ρ a release; the budget's rest in releases.
    String probe =
        post(f, ",\"max_tokens\":2").then().statusCode(200).extract().path("tensafe.request_id");
    Object[] budget =
        (Object[])
            em.createNativeQuery(
                    "SELECT b.rho_limit + b.rho_top_up - b.rho_spent, e.rho / e.releases"
                        + " FROM dp_budget b JOIN dp_budget_event e ON e.budget_id = b.id"
                        + " WHERE e.request_id = ?1 AND e.kind = 'reserve'")
                .setParameter(1, probe)
                .getSingleResult();
    long left =
        ((java.math.BigDecimal) budget[0])
            .divide((java.math.BigDecimal) budget[1], java.math.RoundingMode.FLOOR)
            .longValue();
    int prompt = FakeNode.userPromptTokens("hi");
    // One choice of maxTokens fits what is left; three do not.
    int maxTokens = (int) ((left - prompt) / 3 + 1);
    assertTrue(prompt + maxTokens <= left && maxTokens <= 4096, left + " releases left");
    Ledgers ledgers = new Ledgers(em);
    String budgetEvents =
        "SELECT count(*) FROM dp_budget_event e JOIN dp_budget b ON b.id = e.budget_id"
            + " JOIN adapter a ON a.id = b.adapter_id WHERE a.adapter_ref = ?1";
    long eventsBefore = ledgers.count(budgetEvents, f.adapterId());
    post(f, ",\"max_tokens\":" + maxTokens + ",\"n\":3").then().statusCode(429);
    assertEquals(eventsBefore, ledgers.count(budgetEvents, f.adapterId()));
    assertEquals(
        0,
        ledgers.count(
            "SELECT count(*) FROM gateway_request WHERE adapter_ref = ?1 AND outcome IS NULL",
            f.adapterId()));
    Object spentAfter =
        em.createNativeQuery(
                "SELECT b.rho_limit + b.rho_top_up - b.rho_spent FROM dp_budget b"
                    + " JOIN dp_budget_event e ON e.budget_id = b.id WHERE e.request_id = ?1")
            .setParameter(1, probe)
            .getResultList()
            .getFirst();
    assertEquals(
        0, ((java.math.BigDecimal) budget[0]).compareTo((java.math.BigDecimal) spentAfter));
    assertEquals(1, node.requests.size(), "the refused request never reached the node");
    // The same request with one choice fits.
    post(f, ",\"max_tokens\":" + maxTokens).then().statusCode(200);
  }

  @Test
  void logprobsTop2_wholeAndStreamed_inOpenAisShape() throws Exception {
    GatewayFixture f = served("50");
    JsonPath answer =
        post(f, ",\"max_tokens\":16,\"logprobs\":true,\"top_logprobs\":2")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    List<String> tokens = answer.getList("choices[0].logprobs.content.token");
    assertEquals(List.of("Hel", "lo"), tokens);
    assertEquals(List.of(72, 101, 108), answer.getList("choices[0].logprobs.content[0].bytes"));
    assertEquals(-0.5, answer.getDouble("choices[0].logprobs.content[0].logprob"), 1e-12);
    assertEquals(2, answer.getList("choices[0].logprobs.content[1].top_logprobs").size());
    assertEquals("alt1", answer.getString("choices[0].logprobs.content[1].top_logprobs[1].token"));
    assertEquals(
        List.of(108, 111), answer.getList("choices[0].logprobs.content[1].top_logprobs[0].bytes"));
    String events =
        post(f, ",\"max_tokens\":16,\"logprobs\":true,\"top_logprobs\":2,\"stream\":true")
            .then()
            .statusCode(200)
            .extract()
            .asString();
    StringBuilder streamed = new StringBuilder();
    for (String line : events.split("\n")) {
      if (line.startsWith("data: {")) {
        for (JsonNode c : JSON.readTree(line.substring(6)).path("choices")) {
          for (JsonNode e : c.path("logprobs").path("content")) {
            assertEquals(2, e.path("top_logprobs").size());
            streamed.append(e.path("token").asText());
          }
        }
      }
    }
    assertEquals("Hello", streamed.toString());
    assertTrue(node.requests.getLast().path("logprobs").asBoolean());
    assertEquals(2, node.requests.getLast().path("top_logprobs").asInt());
  }

  /**
   * The official {@code openai} npm client ({@code
   * .tensafe/test/openai/choices-and-logprobs-test.mjs}, installed by {@code npm ci}): {@code n: 3}
   * whole and streamed, {@code logprobs} with {@code top_logprobs: 5} whole and streamed, and the
   * 400s.
   */
  @Test
  void theOpenAiNpmClient_choicesAndLogprobs_wholeAndStreamed() throws Exception {
    GatewayFixture f = served("50");
    java.nio.file.Path client = java.nio.file.Path.of("..", ".tensafe", "test", "openai");
    assertTrue(
        java.nio.file.Files.isDirectory(client.resolve("node_modules/openai")),
        "the pinned openai client is not installed: run `npm ci` in .tensafe/test/openai"
            + " (./tensafe test does)");
    ProcessBuilder run =
        new ProcessBuilder("node", "choices-and-logprobs-test.mjs")
            .directory(client.toFile())
            .redirectErrorStream(true);
    run.environment().put("OPENAI_BASE_URL", base.toString());
    run.environment().put("OPENAI_API_KEY", f.apiKey());
    run.environment().put("TENSAFE_MODEL", f.adapterId());
    Process p = run.start();
    assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "the client did not finish");
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("choices and logprobs test: ok"), out);
    // Five served (n 3 twice, one choice, logprobs twice); the three refused never reached it.
    assertEquals(5, node.requests.size());
    assertEquals(3, node.requests.getFirst().path("n").asInt());
  }

  @Test
  void badChoicesOrLogprobs_400NamingTheParameter_nothingSent() throws Exception {
    GatewayFixture f = served("50");
    String tool =
        ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
            + "{\"type\":\"object\"}}}]";
    for (String[] c :
        List.of(
            new String[] {",\"n\":9", "n"},
            new String[] {",\"n\":0", "n"},
            new String[] {",\"n\":1.5", "n"},
            new String[] {",\"top_logprobs\":3", "top_logprobs"},
            new String[] {",\"logprobs\":true,\"top_logprobs\":21", "top_logprobs"},
            new String[] {",\"logprobs\":\"yes\"", "logprobs"},
            new String[] {",\"logprobs\":true" + tool, "logprobs"})) {
      post(f, c[0])
          .then()
          .statusCode(400)
          .contentType(containsString("application/problem+json"))
          .body("error.param", equalTo(c[1]));
    }
    assertTrue(node.requests.isEmpty());
  }
}
