package io.tensafe.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tensafe.node.privatemode.NodeSession;
import io.tensafe.node.privatemode.PrivateBounds;
import io.tensafe.node.privatemode.PrivateLimits;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.json.CanonicalJson;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A marketplace on loopback for the local API's tests, with the routes a private-mode client uses:
 * {@code GET /v1/models}, and private sessions whose frames it answers with a node session in this
 * process (without DP noise), as the real one relays them to a node. It sends the plan and config
 * hash it is given, so a test can send a wrong one, and keeps what it was asked.
 */
final class FakeMarketplace implements AutoCloseable {
  /** The marketplace key the client is given. */
  static final String KEY = "tsk_marketplace-key-for-tests";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final FrameLimits LIMITS =
      new FrameLimits(1 << 28, PrivateLimits.MAX_CIPHERTEXTS, 1 << 20);
  private final HttpServer server;
  private final LoraAdapter adapter;
  private final SitePlan plan;
  private final String configSha256;
  private final Map<String, NodeSession> nodes = new ConcurrentHashMap<>();
  private final Map<String, FrameOrder> orders = new ConcurrentHashMap<>();

  /** The fleet whose node answers: its public key is listed, its private key opens the wrap. */
  final FleetKeyPair fleet = FleetKeyPair.generate("test-fleet", new SecureRandom());

  /** Every request's Authorization header, in order. */
  final List<String> authorizations = Collections.synchronizedList(new ArrayList<>());

  /** Frames relayed, and sessions ended. */
  final AtomicInteger frames = new AtomicInteger();

  final AtomicInteger closed = new AtomicInteger();

  /**
   * @param plan the plan sent to the client and used by the node
   * @param configSha256 the base model's config hash sent to the client
   */
  FakeMarketplace(LoraAdapter adapter, SitePlan plan, String configSha256) throws IOException {
    this.adapter = adapter;
    this.plan = plan;
    this.configSha256 = configSha256;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    server.createContext("/v1/models", x -> answer(x, this::models));
    server.createContext("/v1/private/sessions", x -> answer(x, this::sessions));
    server.createContext("/v1/private/fleets", x -> answer(x, this::fleets));
    server.start();
  }

  /** Pins in a fresh file: the first session pins this marketplace's fleet on first use. */
  static io.tensafe.client.marketplace.FleetPins pins() throws IOException {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("tensafe-pins");
    return io.tensafe.client.marketplace.FleetPins.load(
        dir.resolve("known_fleets.json"), List.of());
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private interface Route {
    byte[] handle(HttpExchange x) throws Exception;
  }

  private void answer(HttpExchange x, Route route) throws IOException {
    try (x) {
      authorizations.add(x.getRequestHeaders().getFirst("Authorization"));
      byte[] body;
      int status = 200;
      try {
        body = route.handle(x);
      } catch (Exception e) {
        status = 400;
        body = JSON.writeValueAsBytes(Map.of("detail", String.valueOf(e.getMessage())));
      }
      x.sendResponseHeaders(status, body.length);
      x.getResponseBody().write(body);
    }
  }

  private byte[] models(HttpExchange x) throws IOException {
    return JSON.writeValueAsBytes(
        Map.of("object", "list", "data", List.of(Map.of("id", "demo-banking", "object", "model"))));
  }

  private byte[] fleets(HttpExchange x) throws IOException {
    String document =
        new String(
            CanonicalJson.encode(KeyFiles.fleetPublicJson(fleet.publicKey())),
            java.nio.charset.StandardCharsets.UTF_8);
    return JSON.writeValueAsBytes(
        Map.of(
            "object",
            "list",
            "data",
            List.of(Map.of("id", fleet.publicKey().fleetId(), "public_key", document))));
  }

  private byte[] sessions(HttpExchange x) throws Exception {
    String path = x.getRequestURI().getPath();
    if (x.getRequestMethod().equals("POST") && path.endsWith("/frames")) {
      String id = path.split("/")[4];
      frames.incrementAndGet();
      byte[] frame = x.getRequestBody().readAllBytes();
      return nodes.get(id).answer(frame, LIMITS);
    }
    if (x.getRequestMethod().equals("DELETE")) {
      FrameOrder order = orders.get(path.split("/")[4]);
      closed.incrementAndGet();
      ObjectNode bill = JSON.createObjectNode();
      bill.putObject("usage")
          .put("prompt_tokens", order.promptTokens())
          .put("completion_tokens", order.completionTokens());
      bill.putObject("tensafe").put("mode", "private").put("amount_micros", 1);
      return JSON.writeValueAsBytes(bill);
    }
    JsonNode r = JSON.readTree(x.getRequestBody());
    List<byte[]> keys = new ArrayList<>();
    r.path("public_keys").forEach(k -> keys.add(Base64.getDecoder().decode(k.asText())));
    int chunk = PrivateLimits.prefillChunk(plan, 64 << 20);
    FrameOrder order =
        new FrameOrder(
            r.path("max_prompt_tokens").asInt(), r.path("max_tokens").asInt() - 1, chunk);
    String id = UUID.randomUUID().toString();
    PrivateBounds bounds = PrivateBounds.asPackWouldSign(adapter);
    FrameAuth auth =
        FrameAuth.accept(
            fleet, Base64.getDecoder().decode(r.path("frame_key_wrap").asText()), keys);
    NodeSession node =
        NodeSession.openWithoutNoiseForTesting(
            adapter, bounds, plan, keys, auth, new InputPrivacy(100, 1), order, new SecureRandom());
    nodes.put(id, node);
    orders.put(id, order);
    ObjectNode opened = JSON.createObjectNode();
    opened.put("id", id).put("adapter", "demo-banking").put("version", "1.0.0");
    ObjectNode p = opened.putObject("plan");
    ArrayNode groups = p.putArray("groups");
    for (SitePlan.Group g : plan.groups()) {
      ArrayNode sites = groups.addObject().putArray("sites");
      for (SitePlan.Site s : g.sites()) {
        sites
            .addObject()
            .put("path", s.path())
            .put("input_width", s.inputWidth())
            .put("output_width", s.outputWidth())
            .put("rank", s.rank());
      }
    }
    plan.rings().forEach(p.putArray("rings")::add);
    opened.put("clip_norm", 100.0).put("prefill_chunk_tokens", chunk);
    opened
        .putObject("terms")
        .put("a_row_l2_log2", bounds.aRowL2Log2())
        .put("b_row_l1_log2", bounds.bRowL1Log2())
        .put("spectral_log2", bounds.spectralLog2())
        .put("upload_seed_key", Base64.getEncoder().encodeToString(node.terms().seeds().key()))
        .put("noised_sites_per_token", plan.groups().stream().mapToInt(g -> g.sites().size()).sum())
        .put("fleet_key_id", fleet.publicKey().keyId());
    opened.putObject("base_model").put("config_sha256", configSha256);
    return JSON.writeValueAsBytes(opened);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
