package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static io.tensafe.marketplace.testing.Calls.postJson;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.restassured.RestAssured;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1} as OpenAI's SDKs expect it: errors in OpenAI's {@code error} shape (beside the
 * problem+json fields), content as an array of text parts, strict types, bodies that say what is
 * wrong with them and where, and an honest answer when {@code auto} finds nothing it may use.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(OpenAiCompatibilityTest.DefaultNotForThisKey.class)
class OpenAiCompatibilityTest {
  /** A default adapter that no fixture key may use: it does not exist for them. */
  public static class DefaultNotForThisKey implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("tensafe.gateway.default-adapter", "demo-banking-elsewhere");
    }
  }

  @TestHTTPResource("/v1/chat/completions")
  URI chat;

  FakeNode node;
  GatewayFixture f;

  @BeforeEach
  void aPublishedAdapterANodeAndAKey() throws Exception {
    node = new FakeNode();
    f = GatewayFixture.create();
    f.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  private io.restassured.response.Response post(String body) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/json")
        .body(body)
        .post("/v1/chat/completions");
  }

  private HttpResponse<String> postBytes(byte[] body) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(chat)
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + f.apiKey())
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private String withMessages(String messages, String extra) {
    return "{\"model\":\""
        + f.adapterId()
        + "\",\"max_tokens\":4,\"messages\":"
        + messages
        + extra
        + "}";
  }

  @Test
  void errors_carryOpenAisErrorObject_besideTheProblemFields() {
    post(withMessages("[{\"role\":\"user\",\"content\":\"hi\"}]", ",\"functions\":[]"))
        .then()
        .statusCode(400)
        .body("type", equalTo("https://tensafe.io/problems/validation"))
        .body("detail", equalTo("unsupported parameter 'functions'"))
        .body("error.message", equalTo("unsupported parameter 'functions'"))
        .body("error.type", equalTo("invalid_request_error"))
        .body("error.code", equalTo("validation"))
        .body("error.param", equalTo("functions"));
    post("{\"model\":\"no-such\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
        .then()
        .statusCode(404)
        .body("error.code", equalTo("not-found"))
        .body("error.param", equalTo("model"));
    given()
        .header("Authorization", "Bearer tsk_wrong")
        .contentType("application/json")
        .body("{}")
        .post("/v1/chat/completions")
        .then()
        .statusCode(401)
        .body("error.type", equalTo("authentication_error"));
  }

  /**
   * Issue 36: what OpenAI's SDKs and frameworks fill in with no-op defaults is served; the same
   * parameters with a value that would change the answer are refused by name, never ignored.
   */
  @Test
  void noOpDefaults_areServed_andOtherValuesAreRefusedByName() {
    post(withMessages(
            "[{\"role\":\"user\",\"content\":\"hi\"}]",
            ",\"presence_penalty\":0,\"frequency_penalty\":0.0,\"logprobs\":false,"
                + "\"top_logprobs\":null,\"logit_bias\":{},\"tools\":[],\"tool_choice\":\"none\","
                + "\"parallel_tool_calls\":true,\"response_format\":{\"type\":\"text\"},"
                + "\"store\":false,\"user\":\"u-1\""))
        .then()
        .statusCode(200);
    for (String changing :
        List.of(
            "\"presence_penalty\":0.5",
            "\"frequency_penalty\":-1",
            "\"best_of\":2",
            "\"logit_bias\":{\"50256\":-100}",
            "\"store\":true")) {
      String field = changing.substring(1, changing.indexOf('"', 1));
      post(withMessages("[{\"role\":\"user\",\"content\":\"hi\"}]", "," + changing))
          .then()
          .statusCode(400)
          .body("error.param", equalTo(field))
          .body("detail", org.hamcrest.Matchers.containsString("no-op value"));
    }
  }

  /** Issue 36: {@code GET /v1/models/{id}}, as OpenAI's clients retrieve a model. */
  @Test
  void oneModel_isRetrievedById_andOneTheKeyMayNotUseIsNotFound() {
    given()
        .header("Authorization", "Bearer " + f.apiKey())
        .get("/v1/models/" + f.adapterId())
        .then()
        .statusCode(200)
        .body("id", equalTo(f.adapterId()))
        .body("object", equalTo("model"));
    given()
        .header("Authorization", "Bearer " + f.apiKey())
        .get("/v1/models/auto")
        .then()
        .statusCode(200)
        .body("owned_by", equalTo("tensafe"));
    given()
        .header("Authorization", "Bearer " + f.apiKey())
        .get("/v1/models/no-such-model")
        .then()
        .statusCode(404)
        .body("error.param", equalTo("model"));
  }

  @Test
  void contentAsTextParts_isServed_andTheNodeGetsTheTextJoined() {
    post(withMessages(
            "[{\"role\":\"developer\",\"content\":[{\"type\":\"text\",\"text\":\"Be brief.\"}]},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hello\"},"
                + "{\"type\":\"text\",\"text\":\"there\"}]}]",
            ""))
        .then()
        .statusCode(200);
    var sent = node.requests.get(node.requests.size() - 1).get("messages");
    assertEquals("system", sent.get(0).get("role").asText());
    assertEquals("Be brief.", sent.get(0).get("content").asText());
    assertEquals("Hello\nthere", sent.get(1).get("content").asText());
  }

  @Test
  void aPartThatIsNotText_isRefusedByName() {
    post(withMessages(
            "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is this?\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AA==\"}}]}]",
            ""))
        .then()
        .statusCode(400)
        .body("detail", containsString("content part type 'image_url'"))
        .body("error.param", equalTo("messages[0].content[1].type"));
    post(withMessages("[{\"role\":\"function\",\"content\":\"42\"}]", ""))
        .then()
        .statusCode(400)
        .body("detail", containsString("'function' is not supported"));
  }

  @Test
  void streamMustBeABoolean() {
    post(withMessages("[{\"role\":\"user\",\"content\":\"hi\"}]", ",\"stream\":\"yes\""))
        .then()
        .statusCode(400)
        .body("detail", containsString("stream must be true or false"))
        .body("error.param", equalTo("stream"));
    post(withMessages(
            "[{\"role\":\"user\",\"content\":\"hi\"}]",
            ",\"stream\":true,\"stream_options\":{\"include_usage\":1}"))
        .then()
        .statusCode(400)
        .body("error.param", equalTo("stream_options.include_usage"));
  }

  @Test
  void malformedJson_saysWhere() {
    post("{\"model\":\"x\",\n \"messages\": [}")
        .then()
        .statusCode(400)
        .body("detail", containsString("malformed JSON at line 2, column"));
    post("{\"model\":\"x\",\"model\":\"y\",\"messages\":[]}")
        .then()
        .statusCode(400)
        .body("detail", containsString("Duplicate field 'model'"));
    post("{\"model\":\"x\",\"messages\":[]} trailing")
        .then()
        .statusCode(400)
        .body("detail", containsString("malformed JSON"));
  }

  @Test
  void jsonBeyondTheParsersLimits_saysSo_andOtherEndpointsSayWhereTheirJsonBreaks() {
    post("[".repeat(1500) + "]".repeat(1500))
        .then()
        .statusCode(400)
        .body("detail", containsString("beyond the parser's limits"));
    postJson(
            io.tensafe.marketplace.testing.Actors.token("client-" + f.suffix(), "client"),
            "/api/client/api-keys",
            "{\"name\": \"x\",\n  oops}")
        .then()
        .statusCode(400)
        .body("detail", containsString("malformed JSON at line 2, column"));
  }

  @Test
  void invalidUtf8_saysWhichByte() throws Exception {
    byte[] body =
        withMessages("[{\"role\":\"user\",\"content\":\"caf\u00e9\"}]", "")
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    HttpResponse<String> r = postBytes(body);
    assertEquals(400, r.statusCode(), r.body());
    int offset = new String(body, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf('\u00e9');
    assertTrue(r.body().contains("not valid UTF-8"), r.body());
    assertTrue(r.body().contains("byte offset " + offset), r.body());
    assertTrue(r.body().contains("0xe9"), r.body());
  }

  @Test
  void anEmptyBody_saysSo() throws Exception {
    HttpResponse<String> r = postBytes(new byte[0]);
    assertEquals(400, r.statusCode(), r.body());
    assertTrue(r.body().contains("the body is empty"), r.body());
  }

  @Test
  void autoWithNoMatch_andADefaultThisKeyMayNotUse_saysSo_withoutNamingTheDefault() {
    post("{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"qqq zzz\"}]}")
        .then()
        .statusCode(422)
        .body("title", equalTo("No adapter matched"))
        .body("detail", containsString("no keyword"))
        .body("detail", containsString("default adapter is not available to this API key"))
        .body("detail", not(containsString("demo-banking-elsewhere")))
        .body("error.param", equalTo("model"));
  }

  @Test
  void aMultiTurnChat_isRoutedOnItsLatestUserTurn() {
    post("{\"model\":\"auto\",\"max_tokens\":4,\"messages\":["
            + "{\"role\":\"user\",\"content\":\"nothing relevant\"},"
            + "{\"role\":\"assistant\",\"content\":\"ok\"},"
            + "{\"role\":\"user\",\"content\":\"and the "
            + f.keyword()
            + "?\"}]}")
        .then()
        .statusCode(200)
        .body("tensafe.adapter", equalTo(f.adapterId()))
        .body("tensafe.route_reason", containsString("in the latest user message"));
  }

  @Test
  void langChain4j_sendsTextParts_andReadsOurErrors() {
    String baseUrl = "http://localhost:" + RestAssured.port + "/v1";
    OpenAiChatModel model =
        OpenAiChatModel.builder()
            .baseUrl(baseUrl)
            .apiKey(f.apiKey())
            .modelName(f.adapterId())
            .maxTokens(8)
            .maxRetries(0)
            .build();
    // Two contents make LangChain4j send an array of parts.
    ChatResponse answer =
        model.chat(
            ChatRequest.builder()
                .messages(UserMessage.from(TextContent.from("Hello"), TextContent.from("again")))
                .build());
    assertEquals("Hello", answer.aiMessage().text());
    assertTrue(node.requests.get(node.requests.size() - 1).toString().contains("Hello\\nagain"));
    RuntimeException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            RuntimeException.class,
            () ->
                model.chat(
                    ChatRequest.builder()
                        .messages(
                            UserMessage.from(
                                TextContent.from("What is this?"),
                                ImageContent.from("https://example.invalid/cat.png")))
                        .build()));
    assertTrue(
        String.valueOf(refused.getMessage()).contains("content part type 'image_url'"),
        String.valueOf(refused.getMessage()));
  }

  @Test
  void theProblemBody_hasNoNullMessage() {
    post(withMessages("[{\"role\":\"user\",\"content\":\"hi\"}]", ",\"n\":9"))
        .then()
        .statusCode(400)
        .body("error.message", not(nullValue()));
  }
}
