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
 * A stand-in node for the marketplace's private-session tests: opens sessions of the adapters it
 * {@link #serve}s with a plan that lists the adapter's sites (its manifest's module paths, in
 * groups of up to 3, each group with the counts {@link #plan} gives) and claims as many noised
 * sites per token, as the real node's {@code SessionOpened} carries them, unless told to lie
 * ({@link #listed}, {@link #claimedSites}); answers each frame with an answer frame of the same
 * header carrying the plan's answers per token × tokens opaque ciphertexts (the marketplace never
 * reads them), and records what it received. Like the real node it serves only its dispatch token
 * and reads a frame whole before answering. The real node's side (NodeSession) is tested in the
 * inference runtime.
 */
final class FakePrivateNode implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final FrameLimits LIMITS = new FrameLimits(1 << 27, 0xFFFF, 1 << 27);

  /** Sites per group of the plan, as many as a group may have (q, k and v). */
  private static final int SITES_PER_GROUP = 3;

  /** The counts per token of every group of the plan the node opens sessions with. */
  record Plan(
      int roundOneCiphertexts,
      int roundTwoCiphertexts,
      int roundOneAnswers,
      int roundTwoAnswers,
      int uploadBytes) {
    /** One ciphertext per token each way, two answers to round one, 3-byte ciphertexts. */
    static final Plan SMALL = new Plan(1, 1, 2, 1, 3);
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

  volatile Plan plan = Plan.SMALL;

  /** The module paths of each adapter served, by {@code adapter@version} as opening names it. */
  private final java.util.Map<String, List<String>> sites =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** The sites the plan lists, from the adapter's: all of them, each once, unless set. */
  volatile java.util.function.UnaryOperator<List<String>> listed = all -> all;

  /** When set, the noised sites per token the plan claims; else the adapter's sites' count. */
  volatile Integer claimedSites;

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

  /** Serves {@code adapterRef@1.0.0}, as published: its plans list its manifest's sites. */
  void serve(jakarta.persistence.EntityManager em, String adapterRef) {
    sites.put(adapterRef + "@1.0.0", manifestModules(em, adapterRef));
  }

  /**
   * The module paths of {@code adapterRef@1.0.0}'s sites, read here from its signed manifest as a
   * node names them: each {@code lora_A} tensor's name without PEFT's {@code base_model.model.} and
   * without {@code .lora_A.weight}, sorted.
   */
  static List<String> manifestModules(jakarta.persistence.EntityManager em, String adapterRef) {
    List<?> names =
        em.createNativeQuery(
                "SELECT t->>'name' FROM adapter_version v JOIN adapter a ON a.id = v.adapter_id,"
                    + " jsonb_array_elements(v.manifest->'lora'->'tensors') t"
                    + " WHERE a.adapter_ref = ?1 AND v.version = '1.0.0'"
                    + " AND t->>'name' LIKE '%.lora_A.weight' ORDER BY 1")
            .setParameter(1, adapterRef)
            .getResultList();
    if (names.isEmpty()) {
      throw new IllegalStateException(adapterRef + "@1.0.0 has no lora_A tensors");
    }
    List<String> modules = new ArrayList<>();
    for (Object name : names) {
      String n = (String) name;
      if (!n.startsWith("base_model.model.model.layers.")) {
        throw new IllegalStateException("not a PEFT decoder-layer tensor: " + n);
      }
      modules.add(
          n.substring("base_model.model.".length(), n.length() - ".lora_A.weight".length()));
    }
    return modules;
  }

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
      List<String> served = sites.get(request.path("adapter").asText());
      if (served == null) {
        send(x, 500, "{\"detail\":\"not served\"}".getBytes(StandardCharsets.UTF_8), "json");
        return;
      }
      send(x, 201, openAnswer(request.path("session_id").asText(), served), "json");
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

  private byte[] openAnswer(String sessionId, List<String> served) {
    Plan p = plan;
    List<String> paths = listed.apply(served);
    Integer claimed = claimedSites;
    StringBuilder groups = new StringBuilder();
    for (int from = 0; from < paths.size(); from += SITES_PER_GROUP) {
      StringBuilder sites = new StringBuilder();
      for (String path : paths.subList(from, Math.min(paths.size(), from + SITES_PER_GROUP))) {
        sites
            .append(sites.isEmpty() ? "" : ",")
            .append("{\"path\":\"")
            .append(path)
            .append("\",\"input_width\":64,\"output_width\":64,\"rank\":4}");
      }
      groups
          .append(from == 0 ? "" : ",")
          .append(
              String.format(
                  "{\"sites\":[%s],\"round_one_ciphertexts\":%d,"
                      + "\"round_two_ciphertexts\":%d,\"round_one_answers\":%d,"
                      + "\"round_two_answers\":%d,\"upload_bytes\":%d}",
                  sites,
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
            + (claimed != null ? claimed : served.size())
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
