package io.tensafe.node.generation;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code n} choices and {@code logprobs} on the node's API, on the generated tiny model. */
@QuarkusTest
@QuarkusTestResource(TinyModelResource.class)
class ChoicesAndLogprobsTest {
  private static final String CHAT =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"What is a savings account?\"}],"
          + "\"max_tokens\":6,\"temperature\":1.0,\"seed\":5";

  @Test
  void stream_threeChoicesWithTop3_eachChoiceItsPiecesEntriesAndCount() {
    String events =
        post("/v1/generate/stream", CHAT + ",\"n\":3,\"logprobs\":true,\"top_logprobs\":3}")
            .then()
            .statusCode(200)
            .extract()
            .asString();
    List<JsonPath> data =
        Arrays.stream(events.split("\n"))
            .filter(l -> l.startsWith("data:"))
            .map(l -> JsonPath.from(l.substring(5).strip()))
            .toList();
    JsonPath last = data.getLast();
    List<Map<String, Object>> choices = last.getList("choices");
    assertEquals(3, choices.size());
    int sum = 0;
    for (int i = 0; i < 3; i++) {
      StringBuilder text = new StringBuilder();
      StringBuilder tokens = new StringBuilder();
      int count = 0;
      for (JsonPath d : data.subList(0, data.size() - 1)) {
        if (d.getInt("index") != i) {
          continue;
        }
        text.append(d.getString("delta"));
        count = d.getInt("completion_tokens");
        List<Map<String, Object>> entries = d.getList("logprobs");
        for (Map<String, Object> e : entries) {
          tokens.append(e.get("token"));
          assertEquals(3, ((List<?>) e.get("top_logprobs")).size());
          assertTrue(((Number) e.get("logprob")).doubleValue() <= 0);
        }
      }
      assertEquals(text.toString(), tokens.toString(), "choice " + i);
      assertTrue(count <= (int) choices.get(i).get("completion_tokens"));
      sum += (int) choices.get(i).get("completion_tokens");
    }
    assertEquals(sum, last.getInt("usage.completion_tokens"));
    assertEquals(sum, last.getInt("report.completionTokens"));
  }

  @Test
  void generate_twoChoices_wholeAnswerHoldsBoth() {
    JsonPath answer =
        post("/v1/generate", CHAT + ",\"n\":2,\"logprobs\":true}")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    assertEquals(2, answer.getList("choices").size());
    assertEquals(answer.getString("text"), answer.getString("choices[0].text"));
    assertEquals(
        answer.getInt("choices[0].completion_tokens")
            + answer.getInt("choices[1].completion_tokens"),
        answer.getInt("usage.completion_tokens"));
    assertTrue(answer.getList("choices[1].logprobs").size() > 0);
  }

  @Test
  void badChoicesOrLogprobs_400NamingThem() {
    post("/v1/generate", CHAT + ",\"n\":9}")
        .then()
        .statusCode(400)
        .body("detail", containsString("n must be in [1, 8]"));
    post("/v1/generate", CHAT + ",\"top_logprobs\":2}")
        .then()
        .statusCode(400)
        .body("detail", containsString("top_logprobs requires logprobs"));
    post("/v1/generate", CHAT + ",\"logprobs\":true,\"top_logprobs\":21}")
        .then()
        .statusCode(400)
        .body("detail", containsString("top_logprobs must be in [0, 20]"));
  }

  private static io.restassured.response.Response post(String path, String body) {
    return given().contentType("application/json").body(body).post(path);
  }
}
