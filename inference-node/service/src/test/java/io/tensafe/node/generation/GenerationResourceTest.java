package io.tensafe.node.generation;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The node's generation API on the generated tiny model. */
@QuarkusTest
@QuarkusTestResource(TinyModelResource.class)
class GenerationResourceTest {
  private static final String CHAT =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"What is a savings account?\"}],"
          + "\"max_tokens\":6}";

  @Test
  void generate_chat_answersWithUsage_sameTextEveryTime() {
    var first =
        post("/v1/generate", CHAT)
            .then()
            .statusCode(200)
            .body("finish_reason", equalTo("length"))
            .body("usage.completion_tokens", equalTo(6))
            .extract()
            .jsonPath();
    String again = post("/v1/generate", CHAT).then().statusCode(200).extract().path("text");
    assertEquals(first.getString("text"), again);
    assertEquals(first.getInt("usage.prompt_tokens") + 6, first.getInt("usage.total_tokens"));
  }

  /** Issue 35: without a seed each request draws a fresh one; with one, it repeats. */
  @Test
  void sampling_withoutASeed_differsBetweenRequests_andWithOneRepeats() {
    String unseeded =
        "{\"prompt\":\"What is a savings account?\",\"max_tokens\":12,\"temperature\":1.5}";
    java.util.Set<String> texts = new java.util.HashSet<>();
    for (int i = 0; i < 4; i++) {
      texts.add(post("/v1/generate", unseeded).then().statusCode(200).extract().path("text"));
    }
    assertTrue(texts.size() > 1, "four unseeded samples were all " + texts);
    String seeded = unseeded.replace("}", ",\"seed\":7}");
    String first = post("/v1/generate", seeded).then().statusCode(200).extract().path("text");
    assertEquals(first, post("/v1/generate", seeded).then().extract().path("text"));
  }

  @Test
  void stream_sendsDeltasThenUsage_andTheDeltasAreTheText() {
    String whole = post("/v1/generate", CHAT).path("text");
    String events =
        post("/v1/generate/stream", CHAT)
            .then()
            .statusCode(200)
            .contentType(containsString("text/event-stream"))
            .extract()
            .asString();
    List<String> data =
        Arrays.stream(events.split("\n"))
            .filter(l -> l.startsWith("data:"))
            .map(l -> l.substring(5).strip())
            .toList();
    assertTrue(data.getLast().contains("\"completion_tokens\":6"), data.getLast());
    var last = io.restassured.path.json.JsonPath.from(data.getLast());
    StringBuilder text = new StringBuilder();
    int tokens = 0;
    for (String d : data.subList(0, data.size() - 1)) {
      var delta = io.restassured.path.json.JsonPath.from(d);
      text.append(delta.getString("delta"));
      // Each piece says how many tokens the text so far stands for: never falling, never past the
      // total.
      assertTrue(delta.getInt("completion_tokens") >= Math.max(1, tokens), d);
      tokens = delta.getInt("completion_tokens");
      assertEquals(last.getInt("usage.prompt_tokens"), delta.getInt("prompt_tokens"), d);
    }
    assertTrue(tokens >= 1 && tokens <= 6, "last delta's count " + tokens);
    assertEquals(whole, text.toString());
  }

  @Test
  void badInput_getsProblemJson() {
    for (String body :
        List.of(
            "{\"prompt\":\"hi\",\"max_tokens\":0}",
            "{\"prompt\":\"hi\",\"max_tokens\":65}",
            "{\"max_tokens\":3}",
            "{\"prompt\":\"hi\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
            "{\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}",
            "{\"prompt\":\"hi\",\"temperature\":5}",
            "{\"prompt\":\"" + "savings ".repeat(300) + "\"}",
            // More prompt tokens than the caller reserved privacy budget for.
            "{\"prompt\":\"savings account interest\",\"max_prompt_tokens\":2}",
            "not json")) {
      post("/v1/generate", body)
          .then()
          .statusCode(400)
          .contentType(containsString("application/problem+json"))
          .body("status", equalTo(400));
    }
    // The node keeps serving afterwards.
    post("/v1/generate", "{\"prompt\":\"Hello\",\"max_tokens\":2}").then().statusCode(200);
  }

  /** A JSON request to the node, answered. */
  private static final String SCHEMA_FORMAT =
      "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"a\",\"schema\":"
          + "{\"type\":\"object\",\"properties\":{\"k\":{\"enum\":[\"yes\",\"no\"]}},"
          + "\"required\":[\"k\"],\"additionalProperties\":false}}}";

  @Test
  void generate_responseFormatWithUnsupportedKeyword_400NamingIt() {
    String body =
        "{\"prompt\":\"x\",\"max_tokens\":4,\"response_format\":{\"type\":\"json_schema\","
            + "\"json_schema\":{\"name\":\"a\",\"schema\":{\"type\":\"string\","
            + "\"pattern\":\"^a$\"}}}}";
    for (String path : List.of("/v1/generate", "/v1/generate/stream")) {
      post(path, body)
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("detail", containsString("response_format.json_schema.schema.pattern"))
          .body("detail", containsString("'pattern'"));
    }
  }

  @Test
  void generate_jsonSchema_textIsAValidPrefixAndWholeWhenStopped() throws Exception {
    var grammar =
        io.tensafe.chat.json.ResponseFormat.parse(
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(SCHEMA_FORMAT))
            .grammar();
    var out =
        post(
                "/v1/generate",
                "{\"prompt\":\"Answer:\",\"max_tokens\":24,\"temperature\":1,\"seed\":3,"
                    + "\"response_format\":"
                    + SCHEMA_FORMAT
                    + "}")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    String text = out.getString("text");
    assertTrue(grammar.start().feed(text), text);
    if (out.getString("finish_reason").equals("stop")) {
      assertTrue(grammar.matches(text), text);
    }
  }

  private static final String TOOLS =
      "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
          + "{\"type\":\"object\",\"properties\":{\"city\":{\"enum\":[\"Paris\",\"Oslo\"]}},"
          + "\"required\":[\"city\"],\"additionalProperties\":false}}},"
          + "{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}]";

  /** A named function is forced by the node's decoding: the answer is one call of it (ADR 0043). */
  @Test
  void generate_namedToolChoice_answerIsOneCallOfThatFunction() throws Exception {
    var out =
        post(
                "/v1/generate",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"Weather?\"}],\"tools\":"
                    + TOOLS
                    + ",\"tool_choice\":{\"type\":\"function\",\"function\":"
                    + "{\"name\":\"get_weather\"}},\"max_tokens\":64,\"temperature\":1,"
                    + "\"seed\":5}")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    String text = out.getString("text");
    assertEquals("stop", out.getString("finish_reason"), text);
    var events = io.tensafe.chat.tools.ToolCallAnswer.events(text, "0123456789abcdef");
    assertEquals(1, events.size(), text);
    var call = (io.tensafe.chat.tools.ToolCallEvent.Call) events.getFirst();
    assertEquals("get_weather", call.name());
    String city =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(call.arguments())
            .get("city")
            .asText();
    assertTrue(List.of("Paris", "Oslo").contains(city), call.arguments());
  }

  @Test
  void generate_toolChoiceNotAmongTools_400NamingIt() {
    post(
            "/v1/generate",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":"
                + TOOLS
                + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"nope\"}}}")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("tool_choice names function 'nope'"));
  }

  private static io.restassured.response.Response post(String path, String body) {
    return given().contentType("application/json").body(body).post(path);
  }
}
