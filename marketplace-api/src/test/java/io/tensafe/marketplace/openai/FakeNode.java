package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in inference node for the marketplace's dispatch tests: {@code POST /v1/generate/stream}
 * answers the node's event format (deltas "Hel", "lo", then the final usage event with a usage
 * report) and records each request body. The real node's side is tested in inference-node.
 */
final class FakeNode implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  final List<JsonNode> requests = new CopyOnWriteArrayList<>();
  volatile long delayMillis;

  /** When set, the node drops the connection after its first token, as a killed node would. */
  volatile boolean dieAfterFirstToken;

  FakeNode() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/v1/generate/stream",
        x -> {
          JsonNode body = JSON.readTree(x.getRequestBody().readAllBytes());
          requests.add(body);
          x.getResponseHeaders().add("Content-Type", "text/event-stream");
          x.sendResponseHeaders(200, 0);
          String id = body.path("request_id").asText();
          try (OutputStream out = x.getResponseBody()) {
            write(out, "{\"delta\":\"Hel\"}");
            if (dieAfterFirstToken) {
              x.close();
              return;
            }
            try {
              Thread.sleep(delayMillis);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            write(out, "{\"delta\":\"lo\"}");
            write(
                out,
                "{\"request_id\":\""
                    + id
                    + "\",\"finish_reason\":\"stop\",\"usage\":{\"prompt_tokens\":5,"
                    + "\"completion_tokens\":2,\"total_tokens\":7},\"report\":{\"heCalls\":24,"
                    + "\"heEncryptions\":28,\"hePlaintextProducts\":28,\"heDecryptions\":28,"
                    + "\"heMillis\":1.5,\"dpReleases\":28}}");
          }
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  private static void write(OutputStream out, String data) throws IOException {
    out.write(("data:" + data + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
