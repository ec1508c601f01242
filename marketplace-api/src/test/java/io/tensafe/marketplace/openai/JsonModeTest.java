package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** response_format on /v1/chat/completions: checked by the chat library, forwarded to the node. */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class JsonModeTest {
  private static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
          + "\"required\":[\"city\"],\"additionalProperties\":false}";

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

  private io.restassured.response.Response chat(String responseFormat) {
    return given()
        .header("Authorization", "Bearer " + f.apiKey())
        .contentType("application/json")
        .body(
            "{\"model\":\""
                + f.adapterId()
                + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                + "\"response_format\":"
                + responseFormat
                + "}")
        .post("/v1/chat/completions");
  }

  @Test
  void chat_jsonSchemaWithUnsupportedKeyword_400NamingItAndNothingDispatched() {
    chat("{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"a\",\"schema\":"
            + "{\"type\":\"object\",\"properties\":{\"x\":{\"anyOf\":[]}}}}}")
        .then()
        .statusCode(400)
        .contentType(containsString("application/problem+json"))
        .body("error.param", equalTo("response_format"))
        .body("detail", containsString("response_format.json_schema.schema.properties.x.anyOf"))
        .body("detail", containsString("'anyOf'"));
    assertEquals(0, node.requests.size());
  }

  @Test
  void chat_validJsonSchema_reachesTheNodeBody() throws Exception {
    String format =
        "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"city\",\"strict\":true,"
            + "\"schema\":"
            + SCHEMA
            + "}}";
    chat(format).then().statusCode(200);
    JsonNode sent = node.requests.getLast().get("response_format");
    assertEquals(new ObjectMapper().readTree(format), sent);
  }

  @Test
  void chat_textFormat_notForwarded() {
    chat("{\"type\":\"text\"}").then().statusCode(200);
    assertFalse(node.requests.getLast().has("response_format"));
  }
}
