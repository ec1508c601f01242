package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.SessionFrame;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in node for the marketplace's private-session tests: opens sessions with the plan {@link
 * #plan} describes (its groups' counts and its noised sites per token, as the real node's {@code
 * SessionOpened} carries them), answers each frame with an answer frame of the same header carrying
 * the plan's answers per token × tokens opaque ciphertexts (the marketplace never reads them), and
 * records what it received. Like the real node it serves only its dispatch token and reads a frame
 * whole before answering. The real node's side (NodeSession) is tested in the inference runtime.
 */
final class FakePrivateNode implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final FrameLimits LIMITS = new FrameLimits(1 << 27, 0xFFFF, 1 << 27);

  /**
   * The plan the node opens sessions with: {@code groups} groups of one layer-{@code g} {@code
   * q_proj} site each, every one with these counts per token.
   */
  record Plan(
      int groups,
      int roundOneCiphertexts,
      int roundTwoCiphertexts,
      int roundOneAnswers,
      int roundTwoAnswers,
      int uploadBytes,
      int noisedSitesPerToken) {
    /** One group of one site (the fixture's adapter: q_proj of layer 0), 3-byte ciphertexts. */
    static final Plan ONE_SITE = new Plan(1, 1, 1, 2, 1, 3, 1);
  }

  private final HttpServer server;
  final String dispatchToken =
      java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(16))
          + "abcdefghijk";
  final List<JsonNode> opened = new CopyOnWriteArrayList<>();

  /** Every frame body the node read whole. */
  final List<byte[]> frames = new CopyOnWriteArrayList<>();

  final List<String> closed = new CopyOnWriteArrayList<>();

  /** Frame-body bytes read so far, counted as they arrive (a frame streamed to it shows here). */
  final java.util.concurrent.atomic.AtomicLong bytesRead =
      new java.util.concurrent.atomic.AtomicLong();

  volatile Plan plan = Plan.ONE_SITE;

  /** When non-negative, every answer carries this many ciphertexts whatever the plan says. */
  volatile int answerCiphertexts = -1;

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
    byte[] body;
    try {
      body = read(x.getRequestBody(), path.endsWith("/frames"));
    } catch (IOException e) {
      x.close(); // a body cut short: nothing to answer, nothing recorded
      return;
    }
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
      send(x, 201, openAnswer(request.path("session_id").asText()), "json");
    }
  }

  /** Reads a body whole, counting a frame's bytes in {@link #bytesRead} as they arrive. */
  private byte[] read(java.io.InputStream in, boolean frame) throws IOException {
    java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
      body.write(buffer, 0, n);
      if (frame) {
        bytesRead.addAndGet(n);
      }
    }
    return body.toByteArray();
  }

  private byte[] openAnswer(String sessionId) {
    Plan p = plan;
    StringBuilder groups = new StringBuilder();
    for (int g = 0; g < p.groups(); g++) {
      groups
          .append(g == 0 ? "" : ",")
          .append(
              String.format(
                  "{\"sites\":[{\"path\":\"model.layers.%d.self_attn.q_proj\",\"input_width\":64,"
                      + "\"output_width\":64,\"rank\":4}],\"round_one_ciphertexts\":%d,"
                      + "\"round_two_ciphertexts\":%d,\"round_one_answers\":%d,"
                      + "\"round_two_answers\":%d,\"upload_bytes\":%d}",
                  g,
                  p.roundOneCiphertexts(),
                  p.roundTwoCiphertexts(),
                  p.roundOneAnswers(),
                  p.roundTwoAnswers(),
                  p.uploadBytes()));
    }
    return ("{\"session_id\":\""
            + sessionId
            + "\",\"groups\":["
            + groups
            + "],\"rings\":[12],\"prefill_chunk_tokens\":8,\"clip_norm\":1.5,"
            + "\"noised_sites_per_token\":"
            + p.noisedSitesPerToken()
            + "}")
        .getBytes(StandardCharsets.UTF_8);
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
      int perToken =
          frame.kind() == FrameKind.ROUND_ONE ? plan.roundOneAnswers() : plan.roundTwoAnswers();
      int count = answerCiphertexts >= 0 ? answerCiphertexts : perToken * frame.tokens();
      List<byte[]> cts = new ArrayList<>();
      for (int i = 0; i < count; i++) {
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
