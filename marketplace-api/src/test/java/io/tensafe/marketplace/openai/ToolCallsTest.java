package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.output.FinishReason;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.tokens.PlatformChatFormat;
import io.tensafe.marketplace.tokens.PromptTokenizer;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 36: tools as OpenAI's clients use them. The node's output is fixed by the test (a
 * Qwen-style {@code <tool_call>} block, split across tokens); LangChain4j's OpenAI client and raw
 * requests read calls, streamed and not, and a conversation that sends the result back is rendered
 * with the model's chat template, billed by the marketplace's own count of that rendering.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(OpenAiCompatibilityTest.DefaultNotForThisKey.class)
class ToolCallsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> CALL =
      List.of(
          "Checking",
          ".\n",
          "<tool",
          "_call>\n{\"name\": \"get_",
          "weather\", \"arguments\": ",
          "{\"city\": \"Paris\"}}\n</tool_call>",
          "\n");
  private static final String WEATHER_TOOL =
      "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"Weather"
          + " now\",\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":"
          + "\"string\"}},\"required\":[\"city\"]}}}]";

  @TestHTTPResource("/v1")
  URI base;

  FakeNode node;
  GatewayFixture f;

  @BeforeEach
  void aNodeThatCallsATool() throws Exception {
    node = new FakeNode();
    node.fixedDeltas = CALL;
    f = GatewayFixture.create();
    f.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private String body(String messages, String extra) {
    return "{\"model\":\""
        + f.adapterId()
        + "\",\"max_tokens\":64,\"messages\":"
        + messages
        + ",\"tools\":"
        + WEATHER_TOOL
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

  @Test
  void langChain4j_readsTheCall_andTheNodeIsOfferedTheTools() {
    OpenAiChatModel model =
        OpenAiChatModel.builder()
            .baseUrl(base.toString())
            .apiKey(f.apiKey())
            .modelName(f.adapterId())
            .maxTokens(64)
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
                .messages(UserMessage.from("Weather in Paris?"))
                .toolSpecifications(weather)
                .build());
    AiMessage message = answer.aiMessage();
    assertEquals(1, message.toolExecutionRequests().size());
    ToolExecutionRequest call = message.toolExecutionRequests().getFirst();
    assertEquals("get_weather", call.name());
    assertEquals("Paris", readTree(call.arguments()).path("city").asText());
    assertEquals(FinishReason.TOOL_EXECUTION, answer.finishReason());
    assertEquals("Checking.\n", message.text());
    JsonNode sent = node.requests.getLast();
    assertEquals("get_weather", sent.path("tools").path(0).path("function").path("name").asText());

    // The result goes back; the node gets the call and the result, rendered by its template.
    node.fixedDeltas = List.of("It is ", "18C.");
    ChatResponse second =
        model.chat(
            ChatRequest.builder()
                .messages(
                    UserMessage.from("Weather in Paris?"),
                    message,
                    ToolExecutionResultMessage.from(call, "18C"))
                .toolSpecifications(weather)
                .build());
    assertEquals("It is 18C.", second.aiMessage().text());
    JsonNode messages = node.requests.getLast().path("messages");
    assertEquals(
        "get_weather",
        messages.path(1).path("tool_calls").path(0).path("function").path("name").asText());
    assertEquals("tool", messages.path(2).path("role").asText());
    assertEquals(call.id(), messages.path(2).path("tool_call_id").asText());
  }

  @Test
  void wholeAnswer_hasToolCalls_andIsBilledOnTheTemplatesRendering() throws Exception {
    String messages = "[{\"role\":\"user\",\"content\":\"Weather in Paris?\"}]";
    String answer = post(body(messages, "")).then().statusCode(200).extract().asString();
    JsonNode a = JSON.readTree(answer);
    JsonNode message = a.path("choices").path(0).path("message");
    assertEquals("tool_calls", a.path("choices").path(0).path("finish_reason").asText());
    JsonNode call = message.path("tool_calls").path(0);
    assertTrue(call.path("id").asText().startsWith("call_"), call.toString());
    assertEquals("function", call.path("type").asText());
    assertEquals("{\"city\":\"Paris\"}", call.path("function").path("arguments").asText());
    String rendered =
        new PlatformChatFormat()
            .format()
            .prompt(JSON.readTree(messages), JSON.readTree(WEATHER_TOOL));
    assertTrue(
        rendered.contains(
            "<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\""),
        rendered);
    assertEquals(
        new PromptTokenizer().count(rendered), a.path("usage").path("prompt_tokens").asInt());
    // What the client received, counted by the marketplace: the content and the call as delivered
    // (its name and its arguments as sent, compact; the whitespace after it dropped), and the end
    // of turn (ADR 0038).
    assertEquals(
        new PromptTokenizer()
                .count(
                    "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\":"
                        + " {\"city\":\"Paris\"}}\n</tool_call>")
            + 1,
        a.path("usage").path("completion_tokens").asInt());
  }

  @Test
  void stream_sendsContentThenTheCallChunk_andEndsWithToolCalls() throws Exception {
    String events =
        post(body("[{\"role\":\"user\",\"content\":\"Weather in Paris?\"}]", ",\"stream\":true"))
            .then()
            .statusCode(200)
            .extract()
            .asString();
    StringBuilder content = new StringBuilder();
    JsonNode callChunk = null;
    String finish = null;
    for (String line : events.split("\n")) {
      if (!line.startsWith("data: {")) {
        continue;
      }
      JsonNode choice = JSON.readTree(line.substring(6)).path("choices").path(0);
      JsonNode delta = choice.path("delta");
      content.append(delta.path("content").asText(""));
      if (delta.has("tool_calls")) {
        callChunk = delta.path("tool_calls").path(0);
      }
      if (choice.hasNonNull("finish_reason")) {
        finish = choice.get("finish_reason").asText();
      }
    }
    assertEquals("Checking.\n", content.toString());
    assertEquals(0, callChunk.path("index").asInt());
    assertEquals("get_weather", callChunk.path("function").path("name").asText());
    assertEquals("{\"city\":\"Paris\"}", callChunk.path("function").path("arguments").asText());
    assertEquals("tool_calls", finish);
  }

  @Test
  void toolChoiceNone_offersNoTools_andTheCallTextIsContent() {
    post(body("[{\"role\":\"user\",\"content\":\"hi\"}]", ",\"tool_choice\":\"none\""))
        .then()
        .statusCode(200)
        .body("choices[0].message.tool_calls", nullValue())
        .body("choices[0].message.content", containsString("<tool_call>"))
        .body("choices[0].finish_reason", equalTo("stop"));
    assertTrue(node.requests.getLast().path("tools").isMissingNode());
  }

  @Test
  void unsupportedToolShapes_areRefusedByName() {
    for (String[] bad :
        new String[][] {
          {",\"tool_choice\":\"any\"", "tool_choice"},
          {
            ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}",
            "tool_choice"
          },
          {",\"parallel_tool_calls\":\"yes\"", "parallel_tool_calls"},
        }) {
      post(body("[{\"role\":\"user\",\"content\":\"hi\"}]", bad[0]))
          .then()
          .statusCode(400)
          .body("error.param", equalTo(bad[1]));
    }
    post("{\"model\":\""
            + f.adapterId()
            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"tools\":[{\"type\":\"retrieval\"}]}")
        .then()
        .statusCode(400)
        .body("error.param", equalTo("tools[0].type"));
    post("{\"model\":\""
            + f.adapterId()
            + "\",\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}")
        .then()
        .statusCode(400)
        .body("error.param", equalTo("messages[0].tool_call_id"));
  }

  private static JsonNode readTree(String json) {
    try {
      return JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }
}
