package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.tokens.PlatformChatFormat;
import io.tensafe.marketplace.tokens.PromptTokenizer;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The review of issue 36 (ADR 0030, "Review"): attacks on the billing of streamed tool calls and on
 * the cost of rendering a client's messages and tools. Each test fails if its attack works.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(OpenAiCompatibilityTest.DefaultNotForThisKey.class)
class ToolCallBillingTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PromptTokenizer TOKENIZER = new PromptTokenizer();
  private static final String MESSAGES = "[{\"role\":\"user\",\"content\":\"Weather in Paris?\"}]";
  private static final String WEATHER_TOOL =
      "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
          + "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}]";

  @Inject EntityManager em;

  FakeNode node;
  GatewayFixture f;

  @BeforeEach
  void aNode() throws Exception {
    node = new FakeNode();
    f = GatewayFixture.create();
    f.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private String body(String messages, String tools, String extra) {
    return "{\"model\":\""
        + f.adapterId()
        + "\",\"max_tokens\":64,\"messages\":"
        + messages
        + ",\"tools\":"
        + tools
        + extra
        + "}";
  }

  private io.restassured.response.Response post(String body) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/json")
        .body(body)
        .post("/v1/chat/completions");
  }

  private static long prompt(String messages, String tools) throws Exception {
    return TOKENIZER.count(
        new PlatformChatFormat().format().prompt(JSON.readTree(messages), JSON.readTree(tools)));
  }

  /** The request's delivered prompt and completion tokens and its outcome. */
  private List<Object> endOf(String requestId) {
    Object[] row =
        (Object[])
            em.createNativeQuery(
                    "SELECT delivered_prompt_tokens, delivered_completion_tokens, outcome"
                        + " FROM gateway_request WHERE request_id = :r")
                .setParameter("r", java.util.UUID.fromString(requestId))
                .getSingleResult();
    return List.of(((Number) row[0]).longValue(), ((Number) row[1]).longValue(), row[2].toString());
  }

  /** The text content the client received in a stream's events. */
  private static String content(String events) throws Exception {
    StringBuilder content = new StringBuilder();
    for (String line : events.split("\n")) {
      if (line.startsWith("data: {")) {
        content.append(
            JSON.readTree(line.substring(6))
                .path("choices")
                .path(0)
                .path("delta")
                .path("content")
                .asText(""));
      }
    }
    return content.toString();
  }

  @Test
  void stream_textSentInThePieceThatOpensACall_isBilledWhenTheNodeDies() throws Exception {
    node.fixedDeltas = List.of("The answer is 42. <tool_call>\n{\"name\": \"get_");
    node.dieAfterFixedDeltas = true;
    io.restassured.response.Response r = post(body(MESSAGES, WEATHER_TOOL, ",\"stream\":true"));
    String events = r.then().statusCode(200).extract().asString();
    assertEquals("The answer is 42. ", content(events));
    // The client got the text: it pays for it and for the prompt, as for any stream cut short.
    assertEquals(
        List.of(
            prompt(MESSAGES, WEATHER_TOOL),
            (long) TOKENIZER.count("The answer is 42. "),
            "node_failed"),
        endOf(r.header("X-Request-Id")));
  }

  @Test
  void stream_aCallSentInThePieceThatOpensTheNext_isBilledWhenTheNodeDies() throws Exception {
    String call = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>\n";
    node.fixedDeltas = List.of(call + "<tool_call>\n{");
    node.dieAfterFixedDeltas = true;
    io.restassured.response.Response r = post(body(MESSAGES, WEATHER_TOOL, ",\"stream\":true"));
    String events = r.then().statusCode(200).extract().asString();
    assertTrue(events.contains("\"tool_calls\""), events);
    assertEquals(
        // The call as delivered: its block, without the whitespace after it (dropped, never sent).
        List.of(
            prompt(MESSAGES, WEATHER_TOOL), (long) TOKENIZER.count(call.strip()), "node_failed"),
        endOf(r.header("X-Request-Id")));
  }

  /**
   * Issue 51: a node padded its call's block with a member the client never receives ({@code
   * "pad"}); the call is billed as delivered (its name and arguments), streamed and not.
   */
  @Test
  void aCallPaddedWithMembersTheClientNeverGets_isBilledAsDelivered() throws Exception {
    String delivered =
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}\n</tool_call>";
    String padded =
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}, \"pad\": \""
            + "lorem ipsum ".repeat(300)
            + "\"}\n</tool_call>";
    node.fixedDeltas = List.of(padded);
    for (String extra : List.of("", ",\"stream\":true")) {
      io.restassured.response.Response r = post(body(MESSAGES, WEATHER_TOOL, extra));
      String answer = r.then().statusCode(200).extract().asString();
      assertTrue(answer.contains("get_weather") && !answer.contains("lorem"), answer);
      // The end-of-turn token after the call, as for any answer that stopped.
      assertEquals(
          List.of(prompt(MESSAGES, WEATHER_TOOL), TOKENIZER.count(delivered) + 1L, "completed"),
          endOf(r.header("X-Request-Id")),
          extra);
    }
  }

  @Test
  void stream_aCallNeverClosed_isSentAsTextAtTheEnd_andBilledAsSent() throws Exception {
    node.fixedDeltas = List.of("Hi ", "<tool_call>", "\n{\"name\": ", "\"get_weather\"");
    io.restassured.response.Response r = post(body(MESSAGES, WEATHER_TOOL, ",\"stream\":true"));
    String events = r.then().statusCode(200).extract().asString();
    String all = String.join("", node.fixedDeltas);
    assertEquals(all, content(events));
    assertEquals(
        List.of(prompt(MESSAGES, WEATHER_TOOL), TOKENIZER.count(all) + 1L, "completed"),
        endOf(r.header("X-Request-Id")));
  }

  @Test
  void toolParametersNestedDeep_areAnsweredNotCrashed() {
    String deep = "{\"a\":".repeat(900) + "1" + "}".repeat(900);
    String tools =
        "[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
            + "{\"type\":\"object\",\"properties\":"
            + deep
            + "}}}]";
    node.fixedDeltas = List.of("ok");
    io.restassured.response.Response r = post(body(MESSAGES, tools, ""));
    // Rendered and counted (answered, refused by name, or too large for the budget): never a 500.
    assertTrue(List.of(200, 400, 422).contains(r.statusCode()), r.asString());
  }

  @Test
  void aBodyOfMessagesTheTemplateDrops_rendersInLinearTime() {
    // Earlier answers' reasoning is dropped by Qwen3's template: 4 MiB of it, split on every
    // '</think>', must not cost the marketplace more than a linear pass.
    StringBuilder messages = new StringBuilder("[");
    String reasoning = "x</think>".repeat(1_800);
    for (int i = 0; i < 120; i++) {
      messages
          .append("{\"role\":\"user\",\"content\":\"q\"},")
          .append("{\"role\":\"assistant\",\"content\":\"<think>")
          .append(reasoning)
          .append("a\"},");
    }
    messages.append("{\"role\":\"user\",\"content\":\"last\"}]");
    node.fixedDeltas = List.of("ok");
    long started = System.nanoTime();
    int status = post(body(messages.toString(), WEATHER_TOOL, "")).then().extract().statusCode();
    long millis = (System.nanoTime() - started) / 1_000_000;
    assertTrue(status == 200 || status == 413, "status " + status);
    assertTrue(millis < 15_000, millis + " ms");
  }
}
