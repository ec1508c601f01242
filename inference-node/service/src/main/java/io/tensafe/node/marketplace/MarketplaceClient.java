package io.tensafe.node.marketplace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.CreatorPublicKey;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.crypto.RecipientEntry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The node's side of the marketplace's node API ({@code /api/node/...}), authenticated with the
 * node client's bearer tokens. A 401 drops the cached token and retries once. Errors name the
 * status and the marketplace's problem detail. Thread-safe.
 */
public final class MarketplaceClient {
  /** Largest package a node downloads, in bytes (4 GiB). */
  public static final long MAX_PACKAGE_BYTES = 4L << 30;

  private final HttpClient http;
  private final URI base;
  private final TokenSource tokens;
  private final ObjectMapper json = new ObjectMapper();

  /**
   * @param base the marketplace's root, e.g. {@code http://127.0.0.1:8080/}
   */
  public MarketplaceClient(HttpClient http, URI base, TokenSource tokens) {
    this.http = http;
    this.base = base.toString().endsWith("/") ? base : URI.create(base + "/");
    this.tokens = tokens;
  }

  public URI base() {
    return base;
  }

  /** A registration challenge: its id and the nonce wrapped to the fleet's public key. */
  public record Challenge(String id, RecipientEntry wrapped) {}

  /** {@code POST /api/node/register/challenge} for joining {@code fleetId} as {@code name}. */
  public Challenge challenge(String fleetId, String name) throws IOException {
    HttpResponse<String> r =
        call(
            "api/node/register/challenge",
            b -> b.POST(body(Map.of("fleetId", fleetId, "name", name))),
            HttpResponse.BodyHandlers.ofString());
    expectOk(r, "registration challenge");
    JsonNode c = json.readTree(r.body());
    java.util.Base64.Decoder b64 = java.util.Base64.getUrlDecoder();
    try {
      return new Challenge(
          c.path("challengeId").asText(),
          new RecipientEntry(
              c.path("fleetKeyId").asText(),
              b64.decode(c.path("x25519Ephemeral").asText()),
              b64.decode(c.path("mlKemCiphertext").asText()),
              b64.decode(c.path("wrappedNonce").asText())));
    } catch (IllegalArgumentException e) {
      throw new IOException("the registration challenge is malformed: " + e.getMessage(), e);
    }
  }

  /** {@code POST /api/node/register}. */
  public void register(Map<String, Object> registration) throws IOException {
    postJson("api/node/register", registration, "registration");
  }

  /**
   * {@code POST /api/node/heartbeat}; false when the marketplace does not know this node (register
   * again).
   */
  public boolean heartbeat(String name, List<String> loadedAdapters) throws IOException {
    HttpResponse<String> r =
        call(
            "api/node/heartbeat",
            b -> b.POST(body(Map.of("name", name, "loadedAdapters", loadedAdapters))),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() == 404) {
      return false;
    }
    expectOk(r, "heartbeat");
    return true;
  }

  /** The creators' registered, unrevoked signing keys. */
  public List<CreatorPublicKey> creatorKeys() throws IOException {
    HttpResponse<String> r =
        call(
            "api/node/creator-keys",
            HttpRequest.Builder::GET,
            HttpResponse.BodyHandlers.ofString());
    expectOk(r, "creator keys");
    List<CreatorPublicKey> keys = new ArrayList<>();
    for (JsonNode document : json.readTree(r.body()).path("keys")) {
      try {
        keys.add(
            KeyFiles.parseCreatorPublic(
                "marketplace key", document.asText().getBytes(StandardCharsets.UTF_8)));
      } catch (TgspException e) {
        throw new IOException("the marketplace sent a malformed creator key: " + e.getMessage(), e);
      }
    }
    return keys;
  }

  /**
   * Downloads the package of {@code adapterId@version} for node {@code node} into {@code file}
   * (atomically).
   *
   * @throws PackageNotFoundException when the marketplace has none for this node's fleet
   */
  public void download(String adapterId, String version, String node, Path file)
      throws IOException {
    Path partial = file.resolveSibling(file.getFileName() + ".part");
    HttpResponse<Path> r =
        call(
            "api/node/packages/" + adapterId + "/" + version + "?node=" + node,
            HttpRequest.Builder::GET,
            HttpResponse.BodyHandlers.ofFile(partial));
    if (r.statusCode() == 404) {
      Files.deleteIfExists(partial);
      throw new PackageNotFoundException(
          "the marketplace has no package " + adapterId + "@" + version + " for this node");
    }
    if (r.statusCode() != 200) {
      String detail = Files.isRegularFile(partial) ? Files.readString(partial) : "";
      Files.deleteIfExists(partial);
      throw new IOException("package download answered " + r.statusCode() + ": " + detail);
    }
    if (Files.size(partial) > MAX_PACKAGE_BYTES) {
      Files.deleteIfExists(partial);
      throw new IOException("the package is larger than " + MAX_PACKAGE_BYTES + " bytes");
    }
    Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * {@code POST /api/node/usage} with one report (JSON bytes as stored in the outbox).
   *
   * @return the marketplace's answer, whatever its status: 200 or 201 acknowledge the report; a
   *     refusal's body (problem+json) says why
   * @throws IOException if the marketplace cannot be reached
   */
  public HttpResponse<String> postUsage(byte[] report) throws IOException {
    return call(
        "api/node/usage",
        b -> b.POST(HttpRequest.BodyPublishers.ofByteArray(report)),
        HttpResponse.BodyHandlers.ofString());
  }

  private void postJson(String path, Object value, String what) throws IOException {
    expectOk(call(path, b -> b.POST(body(value)), HttpResponse.BodyHandlers.ofString()), what);
  }

  private HttpRequest.BodyPublisher body(Object value) throws IOException {
    return HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(value));
  }

  private static void expectOk(HttpResponse<String> r, String what) throws IOException {
    if (r.statusCode() / 100 != 2) {
      throw new IOException(what + " answered " + r.statusCode() + ": " + r.body());
    }
  }

  private interface Method {
    HttpRequest.Builder apply(HttpRequest.Builder b) throws IOException;
  }

  private <T> HttpResponse<T> call(String path, Method method, HttpResponse.BodyHandler<T> handler)
      throws IOException {
    for (int attempt = 0; ; attempt++) {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(base.resolve(path))
              .timeout(Duration.ofSeconds(60))
              .header("Authorization", "Bearer " + tokens.token())
              .header("Content-Type", "application/json")
              .header("Accept", "application/json, application/octet-stream");
      HttpResponse<T> r = send(http, method.apply(b).build(), handler);
      if (r.statusCode() == 401 && attempt == 0) {
        tokens.invalidate();
        continue;
      }
      return r;
    }
  }

  static HttpResponse<String> send(HttpClient http, HttpRequest request) throws IOException {
    return send(http, request, HttpResponse.BodyHandlers.ofString());
  }

  private static <T> HttpResponse<T> send(
      HttpClient http, HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException {
    try {
      return http.send(request, handler);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
