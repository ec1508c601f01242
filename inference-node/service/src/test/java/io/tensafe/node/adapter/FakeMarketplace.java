package io.tensafe.node.adapter;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tensafe.tgsp.crypto.CreatorPublicKey;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.json.CanonicalJson;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An in-process stand-in for the marketplace's node API and Keycloak's token endpoint, for unit
 * tests of the node's client side: it checks the bearer token, serves packages and creator keys
 * that a test puts in, and records what nodes post.
 */
public final class FakeMarketplace implements AutoCloseable {
  static final String TOKEN = "node-token-1";

  private final HttpServer server;
  public final Map<String, byte[]> packages = new ConcurrentHashMap<>();
  public final List<CreatorPublicKey> keys = new CopyOnWriteArrayList<>();
  public final List<String> posts = new CopyOnWriteArrayList<>();
  public volatile int tokensIssued;

  public FakeMarketplace() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/token", this::token);
    server.createContext("/api/", this::api);
    server.start();
  }

  public URI base() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  public URI tokenUrl() {
    return base().resolve("token");
  }

  /** A client of this marketplace, signed in as node client "node-a". */
  public io.tensafe.node.marketplace.MarketplaceClient client() {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    return new io.tensafe.node.marketplace.MarketplaceClient(
        http,
        base(),
        new io.tensafe.node.marketplace.ClientCredentials(http, tokenUrl(), "node-a", "s3cret"));
  }

  private void token(HttpExchange x) throws IOException {
    String form = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    if (!form.contains("grant_type=client_credentials") || !form.contains("client_secret=s3cret")) {
      send(x, 401, "{\"error\":\"invalid_client\"}");
      return;
    }
    tokensIssued++;
    send(x, 200, "{\"access_token\":\"" + TOKEN + "\",\"expires_in\":300}");
  }

  private void api(HttpExchange x) throws IOException {
    if (!("Bearer " + TOKEN).equals(x.getRequestHeaders().getFirst("Authorization"))) {
      send(x, 401, "{}");
      return;
    }
    String path = x.getRequestURI().getPath();
    if (path.equals("/api/node/creator-keys")) {
      StringBuilder body = new StringBuilder("{\"keys\":[");
      for (int i = 0; i < keys.size(); i++) {
        String doc =
            new String(
                CanonicalJson.encode(KeyFiles.creatorPublicJson(keys.get(i))),
                StandardCharsets.UTF_8);
        body.append(i == 0 ? "" : ",").append('"').append(doc.replace("\"", "\\\"")).append('"');
      }
      send(x, 200, body.append("]}").toString());
    } else if (path.startsWith("/api/node/packages/")) {
      byte[] pkg = packages.get(path.substring("/api/node/packages/".length()));
      if (pkg == null) {
        send(x, 404, "{\"status\":404}");
      } else {
        x.sendResponseHeaders(200, pkg.length);
        try (OutputStream out = x.getResponseBody()) {
          out.write(pkg);
        }
      }
    } else if (x.getRequestMethod().equals("POST")) {
      posts.add(path + " " + new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      send(x, 200, "{}");
    } else {
      send(x, 404, "{}");
    }
  }

  private static void send(HttpExchange x, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().add("Content-Type", "application/json");
    x.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
