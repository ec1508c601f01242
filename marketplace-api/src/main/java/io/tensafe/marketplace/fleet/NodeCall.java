package io.tensafe.marketplace.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One streamed generation on a node ({@code POST /v1/generate/stream}): {@link #next} returns the
 * node's events in order, {@code {"delta": ...}} chunks and then one final {@code {"usage", ...}}
 * event. {@link #close} abandons the stream, which makes the node cancel the generation. A node's
 * lines are read at most {@link #MAX_LINE_BYTES} at a time, and at most {@link #MAX_ERROR_BYTES} of
 * an error answer, so a node cannot make the marketplace buffer without bound.
 */
public final class NodeCall implements AutoCloseable {
  /** The longest event line accepted from a node, in bytes. */
  public static final int MAX_LINE_BYTES = 256 * 1024;

  /** How much of a node's error answer is read (for the log only), in bytes. */
  public static final int MAX_ERROR_BYTES = 4096;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final InputStream body;

  private NodeCall(InputStream body) {
    this.body = body;
  }

  /**
   * Starts the generation on {@code target} and waits for the node's answer.
   *
   * @throws java.net.http.HttpTimeoutException if the node does not answer within {@code
   *     firstByteTimeout} (it may be running the request)
   * @throws NodeRefusal if the node answers an error status (nothing was generated)
   * @throws IOException if the node cannot be reached (the caller may try another node: nothing was
   *     generated for the client yet)
   */
  public static NodeCall start(
      HttpClient http, NodeTarget target, byte[] body, Duration firstByteTimeout)
      throws IOException {
    return begin(http, target, body, firstByteTimeout).await();
  }

  /**
   * Sends the generation to {@code target} without waiting for its answer, so that the caller can
   * do other work (commit its ledgers) while the node starts. The caller then either {@link
   * Pending#await}s the answer or {@link Pending#abandon}s the call.
   */
  public static Pending begin(
      HttpClient http, NodeTarget target, byte[] body, Duration firstByteTimeout) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(target.endpoint().resolve("v1/generate/stream"))
              .timeout(firstByteTimeout)
              .header("Content-Type", "application/json")
              .header("Accept", "text/event-stream")
              .header("Authorization", "Bearer " + target.dispatchToken())
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build();
      return new Pending(
          target, http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream()));
    } catch (RuntimeException e) {
      // Reported by await, as a node that cannot be reached: the caller fails over.
      return new Pending(
          target, java.util.concurrent.CompletableFuture.failedFuture(new IOException(e)));
    }
  }

  /**
   * A generation sent to a node whose answer has not been read. Exactly one of {@link #await} and
   * {@link #abandon} is called, once.
   */
  public static final class Pending {
    private final NodeTarget target;
    private final java.util.concurrent.CompletableFuture<HttpResponse<InputStream>> answer;

    private Pending(
        NodeTarget target,
        java.util.concurrent.CompletableFuture<HttpResponse<InputStream>> answer) {
      this.target = target;
      this.answer = answer;
    }

    /**
     * The node's stream, once its answer arrives.
     *
     * @throws java.net.http.HttpTimeoutException, NodeRefusal, IOException as {@link #start}
     */
    public NodeCall await() throws IOException {
      HttpResponse<InputStream> response;
      try {
        response = answer.get();
      } catch (InterruptedException e) {
        abandon();
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      } catch (java.util.concurrent.ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        throw new IOException(e.getCause());
      }
      return new NodeCall(new java.io.BufferedInputStream(body(target, response), 8192));
    }

    /**
     * Gives the call up before anything of it was used: the exchange is cancelled, or the stream
     * closed if the answer already came, which makes the node cancel the generation.
     */
    public void abandon() {
      answer.cancel(true);
      answer.thenAccept(
          response -> {
            try {
              response.body().close();
            } catch (IOException ignored) {
              // abandoning the stream: nothing more to do
            }
          });
    }
  }

  /**
   * Sends {@code request} to {@code target} and returns the body of a 2xx answer.
   *
   * @throws NodeRefusal for any other status, with at most {@link #MAX_ERROR_BYTES} of its body
   * @throws IOException if the node cannot be reached
   */
  static InputStream send(HttpClient http, NodeTarget target, HttpRequest request)
      throws IOException {
    HttpResponse<InputStream> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return body(target, response);
  }

  /**
   * The body of a 2xx answer.
   *
   * @throws NodeRefusal for any other status, with at most {@link #MAX_ERROR_BYTES} of its body
   */
  private static InputStream body(NodeTarget target, HttpResponse<InputStream> response)
      throws IOException {
    if (response.statusCode() / 100 != 2) {
      String detail;
      try (InputStream in = response.body()) {
        detail = new String(in.readNBytes(MAX_ERROR_BYTES), StandardCharsets.UTF_8);
      }
      throw new NodeRefusal(target.name(), response.statusCode(), detail);
    }
    return response.body();
  }

  /**
   * The next event, or null when the stream ended.
   *
   * @throws IOException if the node failed mid-stream or sent a line longer than {@link
   *     #MAX_LINE_BYTES}
   */
  public JsonNode next() throws IOException {
    for (String line = line(); line != null; line = line()) {
      if (line.startsWith("data:")) {
        return JSON.readTree(line.substring(5).strip());
      }
    }
    return null;
  }

  /** The next line without its terminator, or null at the end of the stream. */
  private String line() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = body.read(); ; b = body.read()) {
      if (b < 0) {
        return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
      }
      if (b == '\n') {
        return line.toString(StandardCharsets.UTF_8).stripTrailing();
      }
      if (line.size() >= MAX_LINE_BYTES) {
        throw new IOException("the node sent a line longer than " + MAX_LINE_BYTES + " bytes");
      }
      line.write(b);
    }
  }

  @Override
  public void close() {
    try {
      body.close();
    } catch (IOException ignored) {
      // abandoning the stream: nothing more to do
    }
  }
}
