package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.SessionFrame;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in node for the marketplace's private-session tests: opens sessions (a plan of one group
 * of three sites), answers each frame with an answer frame of the same header carrying {@link
 * #answerCiphertexts} opaque ciphertexts (the marketplace never reads them), and records what it
 * received. Like the real node it serves only its dispatch token. The real node's side
 * (NodeSession) is tested in the inference runtime.
 */
final class FakePrivateNode implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final FrameLimits LIMITS = new FrameLimits(1 << 26, 0xFFFF, 1 << 26);
  private final HttpServer server;
  final String dispatchToken =
      java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(16))
          + "abcdefghijk";
  final List<JsonNode> opened = new CopyOnWriteArrayList<>();
  final List<byte[]> frames = new CopyOnWriteArrayList<>();
  final List<String> closed = new CopyOnWriteArrayList<>();

  volatile int answerCiphertexts = 2;

  /** When set, the node drops the connection on the next frame, as a killed node would. */
  volatile boolean dieOnFrame;

  /** When non-zero, frames are refused with this status. */
  volatile int refuseFramesWith;

  /** When non-zero, session opening is refused with this status. */
  volatile int refuseOpenWith;

  /** Milliseconds the node takes per frame. */
  volatile long frameDelayMillis;

  FakePrivateNode() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/private/sessions", this::handle);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  private void handle(HttpExchange x) throws IOException {
    if (!("Bearer " + dispatchToken).equals(x.getRequestHeaders().getFirst("Authorization"))) {
      x.sendResponseHeaders(401, -1);
      x.close();
      return;
    }
    String path = x.getRequestURI().getPath();
    byte[] body = x.getRequestBody().readAllBytes();
    if (x.getRequestMethod().equals("DELETE")) {
      closed.add(path.substring(path.lastIndexOf('/') + 1));
      x.sendResponseHeaders(204, -1);
      x.close();
    } else if (path.endsWith("/frames")) {
      frame(x, body);
    } else {
      if (refuseOpenWith != 0) {
        send(x, refuseOpenWith, "{\"detail\":\"no\"}".getBytes(StandardCharsets.UTF_8), "json");
        return;
      }
      JsonNode request = JSON.readTree(body);
      opened.add(request);
      String site =
          "{\"path\":\"model.layers.0.self_attn.%s\",\"input_width\":64,"
              + "\"output_width\":64,\"rank\":4}";
      String answer =
          "{\"session_id\":\""
              + request.path("session_id").asText()
              + "\",\"groups\":[{\"sites\":["
              + String.format(site, "q_proj")
              + ","
              + String.format(site, "k_proj")
              + ","
              + String.format(site, "v_proj")
              + "]}],\"rings\":[12],\"prefill_chunk_tokens\":8,\"clip_norm\":1.5}";
      send(x, 201, answer.getBytes(StandardCharsets.UTF_8), "json");
    }
  }

  private void frame(HttpExchange x, byte[] body) throws IOException {
    frames.add(body);
    if (frameDelayMillis > 0) {
      try {
        Thread.sleep(frameDelayMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (dieOnFrame) {
      x.close();
      return;
    }
    if (refuseFramesWith != 0) {
      send(
          x,
          refuseFramesWith,
          "{\"detail\":\"bad frame\"}".getBytes(StandardCharsets.UTF_8),
          "json");
      return;
    }
    try {
      SessionFrame frame = SessionFrame.read(body, LIMITS);
      List<byte[]> cts = new ArrayList<>();
      for (int i = 0; i < answerCiphertexts; i++) {
        cts.add(new byte[] {9, 9, (byte) i});
      }
      send(x, 200, frame.answer(cts).toBytes(), "octet-stream");
    } catch (Exception e) {
      send(x, 400, "{\"detail\":\"malformed\"}".getBytes(StandardCharsets.UTF_8), "json");
    }
  }

  private static void send(HttpExchange x, int status, byte[] body, String type)
      throws IOException {
    x.getResponseHeaders()
        .add("Content-Type", type.equals("json") ? "application/json" : "application/octet-stream");
    x.sendResponseHeaders(status, body.length);
    x.getResponseBody().write(body);
    x.close();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
