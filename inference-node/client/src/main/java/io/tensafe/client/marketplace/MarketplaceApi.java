package io.tensafe.client.marketplace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tensafe.kernels.helora.PrivateScales;
import io.tensafe.kernels.protocol.UploadSeeds;
import io.tensafe.node.privatemode.SessionTerms;
import io.tensafe.node.privatemode.SitePlan;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import io.tensafe.tgsp.crypto.KeyFiles;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * The marketplace's API as a private-mode client uses it, with its API key: the models it may use,
 * the fleets' public keys, and private sessions (open, one frame at a time, close). Only public
 * keys, ciphertext frames and token limits go out; never text.
 */
public final class MarketplaceApi {
  /** The most of any JSON answer read, in bytes, but a session's opening. */
  static final int MAX_JSON_BYTES = 4 << 20;

  /**
   * The most of a session's opening read, in bytes: its plan lists every site (about 4 MB for every
   * expert of Qwen3-30B-A3B's 48 layers, ADR 0034).
   */
  static final int MAX_OPENING_BYTES = 16 << 20;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final URI base;
  private final String apiKey;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  /**
   * @param base the marketplace's URL, e.g. {@code http://127.0.0.1:8080}
   */
  public MarketplaceApi(URI base, String apiKey) {
    this.base = base.toString().endsWith("/") ? base : URI.create(base + "/");
    this.apiKey = apiKey;
  }

  /** {@code GET /v1/models}, as the marketplace answers it. */
  public JsonNode models() throws IOException {
    return JSON.readTree(send(request("v1/models").GET().build(), MAX_JSON_BYTES));
  }

  /**
   * {@code GET /v1/private/fleets}: each active fleet's id and public key, parsed here (the key id
   * is computed from the keys, never taken from the answer). What the marketplace says is checked
   * against the client's pins ({@link FleetPins}) before any key is used.
   *
   * @throws IOException if the answer or a key does not parse
   */
  public List<FleetPublicKey> fleets() throws IOException {
    JsonNode root = JSON.readTree(send(request("v1/private/fleets").GET().build(), MAX_JSON_BYTES));
    List<FleetPublicKey> out = new ArrayList<>();
    for (JsonNode f : root.path("data")) {
      try {
        out.add(
            KeyFiles.parseFleetPublic(
                "the marketplace's fleet " + f.path("id").asText(),
                f.path("public_key").asText("").getBytes(StandardCharsets.UTF_8)));
      } catch (TgspException e) {
        throw new IOException("the marketplace sent a fleet key that does not parse", e);
      }
    }
    return out;
  }

  /** Opens a private session ({@code POST /v1/private/sessions}). */
  public OpenedSession open(
      String model,
      int maxTokens,
      int maxPromptTokens,
      List<String> publicKeys,
      byte[] frameKeyWrap)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("model", model);
    body.put("max_tokens", maxTokens);
    body.put("max_prompt_tokens", maxPromptTokens);
    publicKeys.forEach(body.putArray("public_keys")::add);
    body.put("frame_key_wrap", Base64.getEncoder().encodeToString(frameKeyWrap));
    JsonNode answer =
        JSON.readTree(
            send(
                request("v1/private/sessions")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                    .build(),
                MAX_OPENING_BYTES));
    String sha = answer.path("base_model").path("config_sha256").asText(null);
    String id = answer.path("id").asText();
    SitePlan plan;
    try {
      plan = plan(answer.path("plan"));
    } catch (IOException e) {
      try {
        close(id);
      } catch (IOException ignored) {
        // the marketplace ends an idle session itself
      }
      throw e;
    }
    return new OpenedSession(
        id,
        answer.path("adapter").asText(),
        answer.path("version").asText(),
        plan,
        Math.max(2, answer.path("prefill_chunk_tokens").asInt(Integer.MAX_VALUE)),
        Optional.ofNullable(sha),
        terms(answer),
        answer.path("terms").path("fleet_key_id").asText(""));
  }

  /** The session's public terms: its clip norm, the signed weight bounds and the seed key. */
  private static SessionTerms terms(JsonNode answer) throws IOException {
    try {
      JsonNode t = answer.path("terms");
      byte[] key = Base64.getDecoder().decode(t.path("upload_seed_key").asText(""));
      return new SessionTerms(
          new PrivateScales(
              answer.path("clip_norm").asDouble(),
              Math.scalb(1.0, t.path("a_row_l2_log2").asInt()),
              Math.scalb(1.0, t.path("b_row_l1_log2").asInt())),
          new UploadSeeds(key));
    } catch (IllegalArgumentException e) {
      throw new IOException(
          "the marketplace sent session terms that do not fit: " + e.getMessage(), e);
    }
  }

  private static SitePlan plan(JsonNode plan) throws IOException {
    try {
      List<SitePlan.Group> out = new ArrayList<>();
      for (JsonNode g : plan.path("groups")) {
        List<SitePlan.Site> sites = new ArrayList<>();
        for (JsonNode s : g.path("sites")) {
          sites.add(
              new SitePlan.Site(
                  s.path("path").asText(),
                  s.path("input_width").asInt(),
                  s.path("output_width").asInt(),
                  s.path("rank").asInt()));
        }
        out.add(new SitePlan.Group(sites));
      }
      List<Integer> rings = new ArrayList<>();
      plan.path("rings").forEach(r -> rings.add(r.asInt()));
      SitePlan parsed = new SitePlan(out, rings);
      DecoderOrder.check(parsed);
      return parsed;
    } catch (IllegalArgumentException e) {
      throw new IOException("the session's plan is malformed: " + e.getMessage(), e);
    }
  }

  /** Relays one frame; returns the node's answer frame (at most {@code maxBytes}). */
  public byte[] frame(String session, byte[] frame, long maxBytes) throws IOException {
    return send(
        request("v1/private/sessions/" + session + "/frames")
            .header("Content-Type", "application/octet-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(frame))
            .build(),
        maxBytes);
  }

  /** Ends a session; the marketplace's bill ({@code usage}, {@code tensafe}). */
  public JsonNode close(String session) throws IOException {
    return JSON.readTree(
        send(request("v1/private/sessions/" + session).DELETE().build(), MAX_JSON_BYTES));
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path))
        .timeout(Duration.ofMinutes(5))
        .header("Authorization", "Bearer " + apiKey);
  }

  private byte[] send(HttpRequest request, long maxBytes) throws IOException {
    HttpResponse<InputStream> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    try (InputStream in = response.body()) {
      if (response.statusCode() >= 300) {
        throw new MarketplaceError(
            response.statusCode(), new String(in.readNBytes(64 << 10), StandardCharsets.UTF_8));
      }
      byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
      if (body.length > maxBytes) {
        throw new IOException("the marketplace answered more than " + maxBytes + " bytes");
      }
      return body;
    }
  }
}
