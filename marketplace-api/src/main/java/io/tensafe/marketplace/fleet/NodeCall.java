package io.tensafe.marketplace.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.stream.Stream;

/**
 * One streamed generation on a node ({@code POST /v1/generate/stream}): {@link #next} returns the
 * node's events in order, {@code {"delta": ...}} chunks and then one final {@code {"usage", ...}}
 * event. {@link #close} abandons the stream, which makes the node cancel the generation.
 */
public final class NodeCall implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Stream<String> lines;
  private final Iterator<String> iterator;

  private NodeCall(Stream<String> lines) {
    this.lines = lines;
    this.iterator = lines.iterator();
  }

  /**
   * Starts the generation on {@code target}.
   *
   * @throws IOException if the node cannot be reached or does not answer 200 in time (the caller
   *     may try another node: nothing was generated for the client yet)
   */
  public static NodeCall start(
      HttpClient http, NodeTarget target, byte[] body, Duration firstByteTimeout)
      throws IOException {
    HttpRequest request =
        HttpRequest.newBuilder(target.endpoint().resolve("v1/generate/stream"))
            .timeout(firstByteTimeout)
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream")
            .header("Authorization", "Bearer " + target.dispatchToken())
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    HttpResponse<Stream<String>> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofLines());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (response.statusCode() != 200) {
      String detail = String.join("\n", response.body().limit(20).toList());
      response.body().close();
      throw new IOException(
          "node " + target.name() + " answered " + response.statusCode() + ": " + detail);
    }
    return new NodeCall(response.body());
  }

  /**
   * The next event, or null when the stream ended.
   *
   * @throws IOException if the node failed mid-stream
   */
  public JsonNode next() throws IOException {
    try {
      while (iterator.hasNext()) {
        String line = iterator.next();
        if (line.startsWith("data:")) {
          return JSON.readTree(line.substring(5).strip());
        }
      }
      return null;
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  @Override
  public void close() {
    lines.close();
  }
}
