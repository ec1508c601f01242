package io.tensafe.marketplace.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.UUID;

/**
 * The marketplace's calls to a node's private sessions (ADR 0017), with the node's dispatch token:
 * open ({@code POST /v1/private/sessions}), one frame each way ({@code POST .../{id}/frames}) and
 * close ({@code DELETE .../{id}}). Every answer is read no further than its bound, so a node cannot
 * make the marketplace buffer without limit.
 */
public final class NodeSessionLink {
  /**
   * The largest session-open answer read from a node (its plan), in bytes: a plan of every expert
   * of Qwen3-30B-A3B's 48 layers lists 18,624 sites in 12,384 groups, about 4 MB (ADR 0034).
   */
  public static final int MAX_OPEN_ANSWER_BYTES = 16 << 20;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http;
  private final Duration timeout;

  /**
   * @param timeout how long one call may take (a frame's HE rounds included)
   */
  public NodeSessionLink(HttpClient http, Duration timeout) {
    this.http = http;
    this.timeout = timeout;
  }

  /**
   * Opens a session on {@code target} with {@code body} (the node's JSON).
   *
   * @throws NodeRefusal if the node answers an error status
   * @throws IOException if it cannot be reached or its answer is not JSON within the bound
   */
  public JsonNode open(NodeTarget target, byte[] body) throws IOException {
    HttpRequest request =
        base(target, "v1/private/sessions")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    byte[] answer = send(target, request, MAX_OPEN_ANSWER_BYTES);
    return JSON.readTree(answer);
  }

  /**
   * Streams one client frame of exactly {@code length} bytes from {@code frame} to the node as it
   * reads it (the frame is never held whole here), and returns the node's answer frame (at most
   * {@code maxAnswerBytes}, read whole). If {@code frame} fails, the node gets a body cut short,
   * which it cannot take for a frame, and this throws.
   *
   * @throws NodeRefusal if the node refused the frame
   * @throws IOException if {@code frame} failed, the node failed or its answer is larger than the
   *     bound
   */
  public byte[] frame(
      NodeTarget target, UUID session, InputStream frame, long length, long maxAnswerBytes)
      throws IOException {
    HttpRequest request =
        base(target, "v1/private/sessions/" + session + "/frames")
            .header("Content-Type", "application/octet-stream")
            .POST(
                HttpRequest.BodyPublishers.fromPublisher(
                    HttpRequest.BodyPublishers.ofInputStream(() -> frame), length))
            .build();
    return send(target, request, maxAnswerBytes);
  }

  /** Closes the session on the node; failures are the caller's to log (the node times it out). */
  public void close(NodeTarget target, UUID session) throws IOException {
    send(target, base(target, "v1/private/sessions/" + session).DELETE().build(), 4096);
  }

  private HttpRequest.Builder base(NodeTarget target, String path) {
    return HttpRequest.newBuilder(target.endpoint().resolve(path))
        .timeout(timeout)
        .header("Authorization", "Bearer " + target.dispatchToken());
  }

  private byte[] send(NodeTarget target, HttpRequest request, long maxBytes) throws IOException {
    try (InputStream in = NodeCall.send(http, target, request)) {
      byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
      if (body.length > maxBytes) {
        throw new IOException(
            "node " + target.name() + " answered more than " + maxBytes + " bytes");
      }
      return body;
    }
  }
}
