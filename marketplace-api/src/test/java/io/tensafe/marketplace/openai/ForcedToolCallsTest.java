package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 54: forced tool calls ({@code tool_choice: "required"} or a named function) and {@code
 * parallel_tool_calls: false} through the marketplace, with the official {@code openai} npm client
 * ({@code .tensafe/test/openai/forced-tool-calls-test.mjs}, installed by {@code npm ci}) and
 * LangChain4j. The node stands in for a model decoding under the forced-call grammar that {@code
 * tensafe-chat} compiles from what the marketplace forwards ({@link ForcedCallWalk}); so a call
 * comes back only if the marketplace forwarded the choice, and its arguments match the schema only
 * if the grammar holds them to it.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(OpenAiCompatibilityTest.DefaultNotForThisKey.class)
class ForcedToolCallsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path CLIENT = Path.of("..", ".tensafe", "test", "openai");
  private static final String TOOLS =
      "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
          + "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
          + "\"required\":[\"city\"],\"additionalProperties\":false}}},"
          + "{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}]";

  @TestHTTPResource("/v1")
  URI base;

  FakeNode node;
  GatewayFixture f;

  @BeforeEach
  void aNodeThatDecodesForcedCalls() throws Exception {
    node = new FakeNode();
    node.fixedDeltas = List.of("I would rather ", "chat.");
    node.walksForcedCalls = true;
    f = GatewayFixture.create();
    f.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private io.restassured.response.Response post(String extra) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + f.adapterId()
                + "\",\"max_tokens\":256,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                + "\"tools\":"
                + TOOLS
                + extra
                + "}")
        .post("/v1/chat/completions");
  }

  @Test
  void required_parallelFalse_forwardedToTheNode_oneCallComesBack() throws Exception {
    JsonNode answer =
        JSON.readTree(
            post(",\"tool_choice\":\"required\",\"parallel_tool_calls\":false")
                .then()
                .statusCode(200)
                .body("choices[0].finish_reason", equalTo("tool_calls"))
                .extract()
                .asString());
    JsonNode sent = node.requests.getLast();
    assertEquals("required", sent.path("tool_choice").asText());
    assertEquals(false, sent.path("parallel_tool_calls").asBoolean(true));
    JsonNode calls = answer.path("choices").path(0).path("message").path("tool_calls");
    assertEquals(1, calls.size(), answer.toString());
    JsonNode call = calls.path(0).path("function");
    JsonNode arguments = JSON.readTree(call.path("arguments").asText());
    if (call.path("name").asText().equals("get_weather")) {
      assertTrue(arguments.path("city").isTextual() && arguments.size() == 1, arguments.toString());
    } else {
      assertEquals("get_time", call.path("name").asText());
      assertTrue(arguments.isObject());
    }
  }

  @Test
  void auto_forwardedAsAuto_theModelMayAnswerText() {
    post("")
        .then()
        .statusCode(200)
        .body("choices[0].message.content", equalTo("I would rather chat."))
        .body("choices[0].finish_reason", equalTo("stop"));
    assertEquals("auto", node.requests.getLast().path("tool_choice").asText());
    assertEquals(true, node.requests.getLast().path("parallel_tool_calls").asBoolean(false));
  }

  @Test
  void badChoices_400NamingTheParameter_beforeAnyNodeIsAsked() {
    post(",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_stock\"}}")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("error.param", equalTo("tool_choice"))
        .body("detail", startsWith("tool_choice names function 'get_stock'"));
    given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + f.adapterId()
                + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tool_choice\":"
                + "\"required\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\","
                + "\"parameters\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":"
                + "\"integer\",\"minimum\":1}}}}}]}")
        .post("/v1/chat/completions")
        .then()
        .statusCode(400)
        .body("error.param", equalTo("tools[0].function.parameters.properties.n.minimum"));
    assertTrue(node.requests.isEmpty());
  }

  @Test
  void langChain4j_toolChoiceRequired_getsItsCall() {
    OpenAiChatModel model =
        OpenAiChatModel.builder()
            .baseUrl(base.toString())
            .apiKey(f.apiKey())
            .modelName(f.adapterId())
            .maxTokens(256)
            .build();
    ToolSpecification weather =
        ToolSpecification.builder()
            .name("get_weather")
            .description("Weather now")
            .parameters(
                JsonObjectSchema.builder().addStringProperty("city").required("city").build())
            .build();
    ChatResponse answer =
        model.chat(
            ChatRequest.builder()
                .messages(UserMessage.from("Tell me a joke."))
                .toolSpecifications(weather)
                .toolChoice(ToolChoice.REQUIRED)
                .build());
    assertEquals("required", node.requests.getLast().path("tool_choice").asText());
    List<ToolExecutionRequest> calls = answer.aiMessage().toolExecutionRequests();
    assertTrue(!calls.isEmpty(), answer.toString());
    for (ToolExecutionRequest call : calls) {
      assertEquals("get_weather", call.name());
      assertTrue(readTree(call.arguments()).path("city").isTextual(), call.arguments());
    }
  }

  @Test
  void theOpenAiNpmClient_forcesCalls_requiredNamedAndStreamed() throws Exception {
    assertTrue(
        Files.isDirectory(CLIENT.resolve("node_modules/openai")),
        "the pinned openai client is not installed: run `npm ci` in .tensafe/test/openai"
            + " (./tensafe test does)");
    ProcessBuilder run =
        new ProcessBuilder("node", "forced-tool-calls-test.mjs")
            .directory(CLIENT.toFile())
            .redirectErrorStream(true);
    run.environment().put("OPENAI_BASE_URL", base.toString());
    run.environment().put("OPENAI_API_KEY", f.apiKey());
    run.environment().put("TENSAFE_MODEL", f.adapterId());
    Process p = run.start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the client did not finish in 120 s");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("forced tool calls test: ok"), out);
    assertEquals(4, node.requests.size(), "the refused request never reached the node");
  }

  private static JsonNode readTree(String json) {
    try {
      return JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new AssertionError(json, e);
    }
  }
}
