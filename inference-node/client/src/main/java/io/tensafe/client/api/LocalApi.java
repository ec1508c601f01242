package io.tensafe.client.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tensafe.chat.template.ChatFormat;
import io.tensafe.chat.template.ChatTemplateException;
import io.tensafe.chat.tools.ToolCallAnswer;
import io.tensafe.chat.tools.ToolCallEvent;
import io.tensafe.chat.tools.ToolCallStream;
import io.tensafe.client.marketplace.MarketplaceApi;
import io.tensafe.client.marketplace.MarketplaceError;
import io.tensafe.client.session.BaseModelMismatchException;
import io.tensafe.client.session.CompletionResult;
import io.tensafe.client.session.PrivateCompletions;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The client's local OpenAI-compatible endpoint, on 127.0.0.1 only: {@code GET /v1/models} (the
 * marketplace's list for the key) and {@code POST /v1/chat/completions} (streamed or not, with
 * {@code usage}), each completion run privately ({@link PrivateCompletions}). Every request must
 * carry the run's {@link LocalApiKey} ({@code Authorization: Bearer KEY}); any other is answered
 * 401 {@code invalid_api_key} before its body is read or the marketplace is asked anything. The
 * marketplace key is the client runtime's own and never leaves for this endpoint's callers.
 *
 * <p>Errors are problem+json with OpenAI's {@code error} object: {@code error.code} is the last
 * segment of the problem's {@code type} ({@code invalid_api_key}, {@code invalid_request_error},
 * {@code base_model_mismatch}, {@code upstream_error}, {@code internal_error}) and {@code
 * error.type} OpenAI's class ({@code server_error} for 5xx, else {@code invalid_request_error}, as
 * OpenAI answers a wrong key). A 409 means the adapter does not run on this client's model; a 502,
 * that the marketplace or node failed or sent what the client cannot use; a 500, a fault here,
 * logged once with the id the answer gives. The marketplace's own errors pass through with their
 * status.
 */
public final class LocalApi implements AutoCloseable {
  /** The largest request body read, in bytes. */
  static final int MAX_BODY_BYTES = 4 << 20;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final System.Logger LOG = System.getLogger(LocalApi.class.getName());
  private final HttpServer server;
  private final ExecutorService workers = Executors.newFixedThreadPool(2);
  private final MarketplaceApi marketplace;
  private final PrivateCompletions completions;
  private final LocalApiKey key;
  private final ChatFormat chat;

  /**
   * Binds 127.0.0.1:{@code port} (0 for any free port) and starts serving callers that present
   * {@code key}.
   *
   * @param chat the client's model's chat format (its folder's template): prompts are rendered with
   *     it
   */
  public LocalApi(
      int port,
      LocalApiKey key,
      MarketplaceApi marketplace,
      PrivateCompletions completions,
      ChatFormat chat)
      throws IOException {
    this.key = key;
    this.chat = java.util.Objects.requireNonNull(chat, "the model folder's chat format");
    this.marketplace = marketplace;
    this.completions = completions;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
    server.createContext("/v1/models", x -> guarded(x, this::models));
    server.createContext("/v1/chat/completions", x -> guarded(x, this::chat));
    server.setExecutor(workers);
    server.start();
  }

  /** The port it listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  private interface Handler {
    void handle(HttpExchange x) throws IOException, BaseModelMismatchException;
  }

  private void guarded(HttpExchange x, Handler h) {
    try (x) {
      try {
        key.verify(x.getRequestHeaders().getFirst("Authorization"));
      } catch (LocalApiKey.Refused e) {
        x.getResponseHeaders().add("WWW-Authenticate", "Bearer");
        problem(x, 401, "invalid_api_key", e.getMessage());
        return;
      }
      try {
        h.handle(x);
      } catch (MarketplaceError e) {
        send(x, e.status(), "application/problem+json", e.body().getBytes(StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        problem(x, 400, "invalid_request_error", e.getMessage());
      } catch (BaseModelMismatchException e) {
        problem(x, 409, "base_model_mismatch", e.getMessage());
      } catch (IOException e) {
        problem(x, 502, "upstream_error", "the private session failed: " + e.getMessage());
      } catch (RuntimeException e) {
        String id = UUID.randomUUID().toString();
        LOG.log(System.Logger.Level.ERROR, "local request " + id + " failed", e);
        problem(x, 500, "internal_error", "the client failed (error " + id + ", in its log)");
      }
    } catch (IOException ignored) {
      // the caller went away
    }
  }

  private void models(HttpExchange x) throws IOException {
    if (!x.getRequestMethod().equals("GET")) {
      problem(x, 405, "invalid_request_error", "GET /v1/models");
      return;
    }
    send(x, 200, "application/json", JSON.writeValueAsBytes(marketplace.models()));
  }

  private void chat(HttpExchange x) throws IOException, BaseModelMismatchException {
    if (!x.getRequestMethod().equals("POST")) {
      problem(x, 405, "invalid_request_error", "POST /v1/chat/completions");
      return;
    }
    byte[] bytes = x.getRequestBody().readNBytes(MAX_BODY_BYTES + 1);
    if (bytes.length > MAX_BODY_BYTES) {
      problem(x, 413, "invalid_request_error", "the body may have at most " + MAX_BODY_BYTES);
      return;
    }
    JsonNode body;
    try {
      body = JSON.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("the body is not JSON");
    }
    ChatRequest r = ChatRequest.parse(body);
    String model = PrivateCompletions.route(r.model());
    String id = "chatcmpl-" + UUID.randomUUID();
    long created = System.currentTimeMillis() / 1000;
    String prompt;
    try {
      prompt = chat.prompt(r.messages(), r.tools());
    } catch (ChatTemplateException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
    if (!r.stream()) {
      CompletionResult result = completions.complete(model, prompt, r.sampling(), d -> {});
      send(
          x,
          200,
          "application/json",
          JSON.writeValueAsBytes(ChatAnswers.whole(id, created, result, r.tools() != null)));
      return;
    }
    x.getResponseHeaders().add("Content-Type", "text/event-stream");
    x.getResponseHeaders().add("Cache-Control", "no-cache");
    x.sendResponseHeaders(200, 0);
    OutputStream out = x.getResponseBody();
    String[] served = {model};
    ToolCallStream tools = r.tools() == null ? null : ToolCallAnswer.reader(id);
    CompletionResult result =
        completions.complete(
            model,
            prompt,
            r.sampling(),
            d -> {
              try {
                if (tools == null) {
                  event(
                      out,
                      ChatAnswers.chunk(
                          id,
                          created,
                          served[0],
                          d.text(),
                          null,
                          r.sampling().logprobs() < 0 ? null : d.logprobs()));
                } else {
                  events(out, id, created, served[0], tools.feed(d.text()));
                }
              } catch (IOException e) {
                throw new java.util.concurrent.CancellationException("the caller went away");
              }
            });
    String modelName = result.adapter() + "@" + result.version();
    if (tools != null) {
      events(out, id, created, modelName, tools.finish());
    }
    ObjectNode last =
        ChatAnswers.chunk(
            id,
            created,
            modelName,
            "",
            ToolCallAnswer.finishReason(
                result.generation().finishReason(), tools != null && tools.calls() > 0));
    event(out, last);
    if (r.includeUsage()) {
      event(out, ChatAnswers.usageChunk(id, created, result));
    }
    out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** The chunks of what a tool-call reader gave: text deltas, and one chunk per call. */
  private static void events(
      OutputStream out, String id, long created, String model, java.util.List<ToolCallEvent> read)
      throws IOException {
    for (ToolCallEvent e : read) {
      switch (e) {
        case ToolCallEvent.Content c ->
            event(out, ChatAnswers.chunk(id, created, model, c.text(), null));
        case ToolCallEvent.Call call -> event(out, ChatAnswers.callChunk(id, created, model, call));
      }
    }
  }

  private static void event(OutputStream out, JsonNode data) throws IOException {
    out.write(("data: " + JSON.writeValueAsString(data) + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** A problem of type {@code .../client/CODE}, with OpenAI's {@code error} for it. */
  private static void problem(HttpExchange x, int status, String code, String detail)
      throws IOException {
    ObjectNode p = JSON.createObjectNode();
    p.put("type", "https://tensafe.io/problems/client/" + code);
    p.put("title", code);
    p.put("status", status);
    p.put("detail", detail);
    ObjectNode error = p.putObject("error");
    error.put("message", detail);
    error.put("type", status >= 500 ? "server_error" : "invalid_request_error");
    error.putNull("param");
    error.put("code", code);
    send(x, status, "application/problem+json", JSON.writeValueAsBytes(p));
  }

  private static void send(HttpExchange x, int status, String type, byte[] body)
      throws IOException {
    x.getResponseHeaders().add("Content-Type", type);
    x.sendResponseHeaders(status, body.length);
    x.getResponseBody().write(body);
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
  }
}
