package io.tensafe.node.generation;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

@QuarkusTest
@QuarkusTestResource(TinyModelResource.class)
class AdapterServingTest {
  private static final String PROMPT = "Tell me about deposit insurance.";

  @TestHTTPResource("/")
  URL base;

  @ConfigProperty(name = "tensafe.node.outbox-dir")
  Path outbox;

  private static String body(String adapter) {
    return "{\"prompt\":\""
        + PROMPT
        + "\",\"max_tokens\":12"
        + (adapter == null ? "" : ",\"adapter\":\"" + adapter + "\"")
        + "}";
  }

  private static JsonPath generate(String adapter) {
    return given()
        .contentType("application/json")
        .body(body(adapter))
        .post("/v1/generate")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath();
  }

  @Test
  void adapter_changesTheOutput_andTheReportIsInTheOutboxWithHeCounts() throws Exception {
    String baseText = generate(null).getString("text");
    JsonPath v1 = generate(TinyModelResource.ADAPTER + "@1.0.0");
    JsonPath v2 = generate(TinyModelResource.ADAPTER + "@2.0.0");
    assertNotEquals(baseText, v1.getString("text"));
    assertNotEquals(v1.getString("text"), v2.getString("text"));
    assertEquals("1.0.0", v1.getString("report.adapterVersion"));
    // Every site of both layers: 4 HE calls per layer (q/k/v, o, gate/up, down) per forward pass.
    int passes = v1.getInt("report.completionTokens");
    assertEquals(4L * 2 * passes, v1.getLong("report.heCalls"));
    assertTrue(v1.getLong("report.heEncryptions") > 0);
    assertEquals(0, v1.getLong("report.dpReleases"), "local adapters carry no DP policy");
    Path stored = outbox.resolve(v1.getString("request_id") + ".json");
    assertTrue(Files.exists(stored), "a standalone node keeps its reports in the outbox");
    assertEquals(
        v1.getString("request_id"), JsonPath.from(Files.readString(stored)).getString("requestId"));
  }

  @Test
  void badAdapterInput_getsProblemJson_andTheNodeKeepsServing() {
    Map<String, Integer> cases = new HashMap<>();
    cases.put(body("no-such-adapter@1.0.0"), 404);
    cases.put(body(TinyModelResource.ADAPTER + "@9.9.9"), 404);
    cases.put(body("Bad Id"), 400);
    cases.put(body(TinyModelResource.ADAPTER + "@1.0"), 400);
    cases.put(body("unversioned-and-never-activated"), 404);
    cases.put("{\"prompt\":\"hi\",\"request_id\":\"not-a-uuid\"}", 400);
    cases.put("{\"prompt\":\"hi\",\"dp_noise_multiplier\":2.0}", 400);
    cases.forEach(
        (request, status) ->
            given()
                .contentType("application/json")
                .body(request)
                .post("/v1/generate")
                .then()
                .statusCode(status)
                .contentType(containsString("application/problem+json"))
                .body("status", equalTo(status)));
    given()
        .contentType("application/json")
        .body(
            new byte[] {
              '{', '"', 'p', 'r', 'o', 'm', 'p', 't', '"', ':', '"', (byte) 0xC3, '"', '}'
            })
        .post("/v1/generate")
        .then()
        .statusCode(400)
        .contentType(containsString("application/problem+json"));
    given()
        .contentType("application/json")
        .body(body("no-such-adapter@1.0.0"))
        .post("/v1/generate/stream")
        .then()
        .statusCode(404)
        .contentType(containsString("application/problem+json"));
    generate(TinyModelResource.ADAPTER + "@1.0.0");
  }

  @Test
  void hotSwap_under20ConcurrentStreams_eachStreamMatchesTheVersionItStartedOn() throws Exception {
    Map<String, String> expected =
        Map.of(
            "1.0.0", generate(TinyModelResource.ADAPTER + "@1.0.0").getString("text"),
            "2.0.0", generate(TinyModelResource.ADAPTER + "@2.0.0").getString("text"));
    HttpClient http = HttpClient.newHttpClient();
    List<CompletableFuture<HttpResponse<String>>> streams = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String version = i % 2 == 0 ? "1.0.0" : "2.0.0";
      given()
          .contentType("application/json")
          .body("{\"version\":\"" + version + "\"}")
          .put("/v1/adapters/" + TinyModelResource.ADAPTER)
          .then()
          .statusCode(200)
          .body("active", equalTo(true));
      streams.add(
          http.sendAsync(
              HttpRequest.newBuilder(URI.create(base + "v1/generate/stream"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body(TinyModelResource.ADAPTER)))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
      Thread.sleep(15);
    }
    Map<String, Integer> seen = new HashMap<>();
    for (CompletableFuture<HttpResponse<String>> f : streams) {
      HttpResponse<String> r = f.get();
      assertEquals(200, r.statusCode(), r.body());
      List<String> data =
          Arrays.stream(r.body().split("\n"))
              .filter(l -> l.startsWith("data:"))
              .map(l -> l.substring(5).strip())
              .toList();
      JsonPath last = JsonPath.from(data.getLast());
      String version = last.getString("report.adapterVersion");
      StringBuilder text = new StringBuilder();
      for (String d : data.subList(0, data.size() - 1)) {
        text.append(JsonPath.from(d).getString("delta"));
      }
      assertEquals(expected.get(version), text.toString(), "stream on " + version);
      seen.merge(version, 1, Integer::sum);
    }
    assertEquals(2, seen.size(), "both versions served: " + seen);
  }

  @Test
  void aClientThatGoesAway_cancelsTheGeneration_andItsTokensAreStillReported() throws Exception {
    String id = java.util.UUID.randomUUID().toString();
    HttpResponse<java.io.InputStream> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "v1/generate/stream"))
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"prompt\":\""
                                + PROMPT
                                + "\",\"max_tokens\":64,\"request_id\":\""
                                + id
                                + "\",\"adapter\":\""
                                + TinyModelResource.ADAPTER
                                + "@1.0.0\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    assertEquals(200, r.statusCode());
    var lines =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(r.body(), java.nio.charset.StandardCharsets.UTF_8));
    String line;
    do {
      line = lines.readLine();
    } while (line != null && !line.startsWith("data:"));
    r.body().close();
    Path stored = outbox.resolve(id + ".json");
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!Files.exists(stored) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    JsonPath report = JsonPath.from(Files.readString(stored));
    assertEquals("cancelled", report.getString("finishReason"));
    assertTrue(report.getInt("completionTokens") >= 1);
    assertTrue(report.getInt("completionTokens") < 64, "stopped early");
  }

  @Test
  void metrics_countTokensAndHeldAdapters() {
    generate(TinyModelResource.ADAPTER + "@1.0.0");
    String text = given().get("/metrics").then().statusCode(200).extract().asString();
    assertTrue(text.contains("tensafe_node_tokens_total{kind=\"completion\"}"), text);
    assertTrue(text.contains("tensafe_node_he_seconds_per_token"), text);
    assertTrue(text.contains("tensafe_node_adapters_held"), text);
    assertTrue(text.contains("tensafe_node_usage_reports_waiting"), text);
  }
}
