package io.tensafe.marketplace.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * Issue 36: the official {@code openai} npm client (pinned in {@code .tensafe/test/openai}, which
 * {@code ./tensafe test} installs with {@code npm ci} before the Maven build) reads tool calls,
 * whole and streamed, from a node whose output this test fixes, and sends the result back ({@code
 * .tensafe/test/openai/tool-calls-test.mjs} holds the client's side and its checks).
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
@TestProfile(OpenAiCompatibilityTest.DefaultNotForThisKey.class)
class OpenAiNpmToolCallsTest {
  private static final Path CLIENT = Path.of("..", ".tensafe", "test", "openai");

  @TestHTTPResource("/v1")
  URI base;

  FakeNode node;
  GatewayFixture f;

  @BeforeEach
  void aNodeThatCallsATool() throws Exception {
    node = new FakeNode();
    node.fixedDeltas =
        List.of(
            "Checking",
            ".\n",
            "<tool",
            "_call>\n{\"name\": \"get_",
            "weather\", \"arguments\": ",
            "{\"city\": \"Paris\"}}\n</tool_call>",
            "\n");
    f = GatewayFixture.create();
    f.registerNode("node-1", node.url(), List.of(), 4, node.dispatchToken);
  }

  @AfterEach
  void stopTheNode() {
    node.close();
  }

  @Test
  void theOpenAiNpmClient_readsToolCallsWholeAndStreamed() throws Exception {
    assertTrue(
        Files.isDirectory(CLIENT.resolve("node_modules/openai")),
        "the pinned openai client is not installed: run `npm ci` in .tensafe/test/openai"
            + " (./tensafe test does)");
    ProcessBuilder run =
        new ProcessBuilder("node", "tool-calls-test.mjs")
            .directory(CLIENT.toFile())
            .redirectErrorStream(true);
    run.environment().put("OPENAI_BASE_URL", base.toString());
    run.environment().put("OPENAI_API_KEY", f.apiKey());
    run.environment().put("TENSAFE_MODEL", f.adapterId());
    Process p = run.start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the client did not finish in 120 s");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("tool calls test: ok"), out);
    assertEquals(3, node.requests.size());
  }
}
