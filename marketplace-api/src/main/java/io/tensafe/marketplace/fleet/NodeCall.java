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
 * an error answer, so a node cannot make the marketplace buffer without bound; and a node that
 * answered must make progress within the idle timeout ({@link #progressed}, ADR 0038), whatever
 * else it sends (comment lines, empty pieces), or {@link #next} fails and the stream is closed, so
 * a node that stalls after its headers cannot hold a request's slots and reservation.
 */
public final class NodeCall implements AutoCloseable {
  /** The longest event line accepted from a node, in bytes. */
  public static final int MAX_LINE_BYTES = 256 * 1024;

  /** How much of a node's error answer is read (for the log only), in bytes. */
  public static final int MAX_ERROR_BYTES = 4096;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Closes the streams of nodes that went quiet; one daemon thread for every call. */
  private static final java.util.concurrent.ScheduledThreadPoolExecutor WATCHDOG = watchdog();

  private static java.util.concurrent.ScheduledThreadPoolExecutor watchdog() {
    java.util.concurrent.ScheduledThreadPoolExecutor w =
        new java.util.concurrent.ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "node-idle-watchdog");
              t.setDaemon(true);
              return t;
            });
    w.setRemoveOnCancelPolicy(true); // one task per event: cancelled ones must not pile up
    return w;
  }

  private final InputStream body;
  private final Duration idleTimeout;

  /** Set when the stream was closed for want of progress. */
  private volatile boolean idled;

  /** {@code System.nanoTime()} by which the node must next make progress ({@link #progressed}). */
  private volatile long progressBy;

  private NodeCall(InputStream body, Duration idleTimeout) {
    this.body = body;
    this.idleTimeout = idleTimeout;
    this.progressBy = System.nanoTime() + idleTimeout.toNanos();
  }

  /**
   * Says the event {@link #next} last returned was progress (a piece of text, the final event, an
   * error): the node has the idle timeout again from now. Events that are not progress (an empty
   * piece, an unknown object) do not extend it, so a node cannot keep a stream alive with them.
   */
  public void progressed() {
    progressBy = System.nanoTime() + idleTimeout.toNanos();
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
      HttpClient http,
      NodeTarget target,
      byte[] body,
      Duration firstByteTimeout,
      Duration idleTimeout)
      throws IOException {
    return begin(http, target, body, firstByteTimeout, idleTimeout).await();
  }

  /**
   * Sends the generation to {@code target} without waiting for its answer, so that the caller can
   * do other work (commit its ledgers) while the node starts. The caller then either {@link
   * Pending#await}s the answer or {@link Pending#abandon}s the call.
   *
   * @param idleTimeout the longest a node that answered may go without progress, > 0
   */
  public static Pending begin(
      HttpClient http,
      NodeTarget target,
      byte[] body,
      Duration firstByteTimeout,
      Duration idleTimeout) {
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
          target, http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream()), idleTimeout);
    } catch (RuntimeException e) {
      // Reported by await, as a node that cannot be reached: the caller fails over.
      return new Pending(
          target,
          java.util.concurrent.CompletableFuture.failedFuture(new IOException(e)),
          idleTimeout);
    }
  }

  /**
   * A generation sent to a node whose answer has not been read. Exactly one of {@link #await} and
   * {@link #abandon} is called, once.
   */
  public static final class Pending {
    private final NodeTarget target;
    private final java.util.concurrent.CompletableFuture<HttpResponse<InputStream>> answer;
    private final Duration idleTimeout;

    private Pending(
        NodeTarget target,
        java.util.concurrent.CompletableFuture<HttpResponse<InputStream>> answer,
        Duration idleTimeout) {
      this.target = target;
      this.answer = answer;
      this.idleTimeout = idleTimeout;
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
      return new NodeCall(
          new java.io.BufferedInputStream(body(target, response), 8192), idleTimeout);
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
   * @throws IOException if the node failed mid-stream, sent a line longer than {@link
   *     #MAX_LINE_BYTES}, or made no progress within the idle timeout ({@link #progressed}; the
   *     stream is then closed)
   */
  public JsonNode next() throws IOException {
    long left = progressBy - System.nanoTime();
    if (left <= 0) {
      idled = true;
      close();
      throw idle(null);
    }
    java.util.concurrent.ScheduledFuture<?> watch =
        WATCHDOG.schedule(
            () -> {
              idled = true;
              close();
            },
            left,
            java.util.concurrent.TimeUnit.NANOSECONDS);
    try {
      for (String line = line(); line != null; line = line()) {
        if (line.startsWith("data:")) {
          return JSON.readTree(line.substring(5).strip());
        }
      }
    } catch (IOException e) {
      throw idled ? idle(e) : e;
    } finally {
      watch.cancel(false);
    }
    if (idled) {
      throw idle(null);
    }
    return null;
  }

  private IOException idle(IOException cause) {
    return new IOException(
        "the node made no progress for " + idleTimeout.toMillis() + " ms; the stream was closed",
        cause);
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
