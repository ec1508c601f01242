package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in inference node for the marketplace's dispatch tests: {@code POST /v1/generate/stream}
 * answers the node's event format (deltas "Hel" and "lo", one token each, then the final usage
 * event with a usage report: the prompt's tokens counted with the nodes' tokenizer as an honest
 * node counts them ({@link #promptTokens}), and the DP releases of an adapter with one LoRA input,
 * (prompt + completion − 1) × 1) and records each request body. Like the real node, it serves only
 * requests that present its dispatch token. The real node's side is tested in inference-node.
 *
 * <p>A request with {@code n} choices gets them one after another, each piece tagged with its
 * {@code index}, the final event listing each choice's finish reason, and DP releases of one prompt
 * and each choice's tokens but its last (the real node shares the prefill the same way). With
 * {@code logprobs}, each piece carries one entry: its text at log-probability −0.5, then {@code
 * top_logprobs} alternatives at −0.5, −1.5, −2.5, ... (the first is the chosen token).
 */
final class FakeNode implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  final List<JsonNode> requests = new CopyOnWriteArrayList<>();

  /** Generations being answered now, and the most there ever were at once. */
  final java.util.concurrent.atomic.AtomicInteger inFlight =
      new java.util.concurrent.atomic.AtomicInteger();

  final java.util.concurrent.atomic.AtomicInteger maxInFlight =
      new java.util.concurrent.atomic.AtomicInteger();

  /** The secret it registers; a request without it gets 401, as from the real node. */
  final String dispatchToken =
      java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(16))
          + "abcdefghijk";

  volatile long delayMillis;

  /** When non-zero, the node answers every request with this status and a problem body. */
  volatile int refuseWith;

  /** When set, the node sends one event line of this many bytes instead of its tokens. */
  volatile int hugeLineBytes;

  /** Milliseconds between the node's answer (200) and its first token. */
  volatile long firstTokenDelayMillis;

  /** Milliseconds the node waits, after reading a request, before it answers at all. */
  volatile long answerDelayMillis;

  /**
   * When ≥ 0, the token counts the final event claims for both the prompt and the completion,
   * instead of the true ones (a lying node).
   */
  volatile int claimedTokens = -1;

  /** When ≥ 0, the completion tokens the final event claims (a lying node), prompt unchanged. */
  volatile int claimedCompletion = -1;

  /** When ≥ 0, the DP releases the final event claims instead of the true count. */
  volatile long claimedReleases = -1;

  /**
   * When positive, the node pads its answer after "Hello" with this many deltas of one garbage
   * character each (a node padding its bill).
   */
  volatile int paddingDeltas;

  /** Run with each request body after it is read, before the node answers (e.g. to report it). */
  volatile java.util.function.Consumer<JsonNode> beforeAnswer;

  /**
   * When positive, the node answers this many random tokens of the nodes' tokenizer, one delta each
   * (the token's text), seeded by the request id, then stops on its end-of-turn token.
   */
  volatile int randomTokens;

  /**
   * When set, the node answers these pieces, one token each, then stops (a model whose output the
   * test fixes, e.g. a tool call).
   */
  volatile List<String> fixedDeltas;

  /**
   * When set, a request whose {@code tool_choice} forces a call is answered by a walk through the
   * grammar of its forced calls ({@link ForcedCallWalk}), seeded by the request id, instead of
   * {@link #fixedDeltas}.
   */
  volatile boolean walksForcedCalls;

  /** When set, the node drops the connection after its {@link #fixedDeltas}, before its end. */
  volatile boolean dieAfterFixedDeltas;

  /**
   * When positive, the node stalls this long after its headers, sending only comment lines (no
   * event) every 100 ms, before it goes on.
   */
  volatile long stallAfterHeadersMillis;

  /** When set, the node drops the connection after its first token, as a killed node would. */
  volatile boolean dieAfterFirstToken;

  /**
   * When set, the node sends an error event carrying this {@code detail} after its first token (a
   * node talking to the client through its error text).
   */
  volatile String errorDetailAfterFirstToken;

  /**
   * When set, the node makes exactly max_tokens tokens, one delta each ("w1 ", "w2 ", ...), {@link
   * #delayMillis} apart, instead of "Hel" and "lo".
   */
  volatile boolean countToMaxTokens;

  /**
   * For the gateway benchmark: per request id, {@code System.nanoTime()} when the request arrived
   * and when the first delta was flushed. Same JVM and clock as the benchmark's client.
   */
  final java.util.Map<String, long[]> firstByteTimes =
      new java.util.concurrent.ConcurrentHashMap<>();

  FakeNode() throws IOException {
    // As real nodes' servers do: without TCP_NODELAY a small event waits for the client's
    // delayed ACK (about 40 ms here), which the gateway benchmark would count as the harness's.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/v1/generate/stream",
        x -> {
          long arrived = System.nanoTime();
          if (!("Bearer " + dispatchToken)
              .equals(x.getRequestHeaders().getFirst("Authorization"))) {
            x.sendResponseHeaders(401, -1);
            x.close();
            return;
          }
          JsonNode body = JSON.readTree(x.getRequestBody().readAllBytes());
          requests.add(body);
          maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
          try {
            answer(x, body, arrived);
          } finally {
            inFlight.decrementAndGet();
          }
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  /** Answers one generation request {@code body} that arrived at {@code arrived} (nanoTime). */
  private void answer(com.sun.net.httpserver.HttpExchange x, JsonNode body, long arrived)
      throws IOException {
    int promptTokens = promptTokens(body);
    if (beforeAnswer != null) {
      beforeAnswer.accept(body);
    }
    if (answerDelayMillis > 0) {
      try {
        Thread.sleep(answerDelayMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (refuseWith != 0) {
      byte[] problem =
          ("{\"type\":\"https://tensafe.io/node/problems/adapter-rejected\",\"status\":"
                  + refuseWith
                  + ",\"detail\":\"secret node detail\"}")
              .getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().add("Content-Type", "application/problem+json");
      x.sendResponseHeaders(refuseWith, problem.length);
      x.getResponseBody().write(problem);
      x.close();
      return;
    }
    x.getResponseHeaders().add("Content-Type", "text/event-stream");
    x.sendResponseHeaders(200, 0);
    String id = body.path("request_id").asText();
    try (OutputStream out = x.getResponseBody()) {
      out.flush();
      if (firstTokenDelayMillis > 0) {
        try {
          Thread.sleep(firstTokenDelayMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      for (long stalled = 0; stalled < stallAfterHeadersMillis; stalled += 100) {
        out.write(": still here\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      if (hugeLineBytes > 0) {
        write(out, "{\"delta\":\"" + "x".repeat(hugeLineBytes) + "\"}");
        return;
      }
      if (randomTokens > 0) {
        java.util.Random random = new java.util.Random(id.hashCode());
        for (int i = 0; i < randomTokens; i++) {
          String piece = TOKENIZER.decode(random.nextInt(151_000));
          write(out, JSON.createObjectNode().put("delta", piece).toString());
        }
        write(
            out,
            "{\"request_id\":\""
                + id
                + "\",\"finish_reason\":\"stop\",\"usage\":{\"prompt_tokens\":"
                + promptTokens
                + ",\"completion_tokens\":"
                + randomTokens
                + "},\"report\":{\"dpReleases\":"
                + (promptTokens + randomTokens - 1)
                + "}}");
        return;
      }
      List<String> fixed = fixedDeltas;
      io.tensafe.chat.tools.ToolCallGrammar forced =
          walksForcedCalls ? ForcedCallWalk.forced(body) : null;
      if (forced != null) {
        fixed = ForcedCallWalk.pieces(forced, id.hashCode());
      }
      if (fixed != null) {
        for (String piece : fixed) {
          write(out, JSON.createObjectNode().put("delta", piece).toString());
        }
        if (dieAfterFixedDeltas) {
          x.close();
          return;
        }
        write(
            out,
            "{\"request_id\":\""
                + id
                + "\",\"finish_reason\":\"stop\",\"usage\":{\"prompt_tokens\":"
                + promptTokens
                + ",\"completion_tokens\":"
                + fixed.size()
                + "},\"report\":{\"dpReleases\":"
                + (promptTokens + fixed.size() - 1)
                + "}}");
        return;
      }
      int tokens = countToMaxTokens ? body.path("max_tokens").asInt() : 2;
      int choices = body.path("n").asInt(1);
      for (int c = 0; c < choices; c++)
        for (int i = 1; i <= tokens; i++) {
          String text = countToMaxTokens ? "w" + i + " " : i == 1 ? "Hel" : "lo";
          com.fasterxml.jackson.databind.node.ObjectNode event =
              JSON.createObjectNode()
                  .put("index", c)
                  .put("delta", text)
                  .put("prompt_tokens", promptTokens)
                  .put("completion_tokens", i);
          if (body.path("logprobs").asBoolean()) {
            var entry = event.putArray("logprobs").addObject();
            entry.put("token", text).put("logprob", -0.5);
            var top = entry.putArray("top_logprobs");
            for (int t = 0; t < body.path("top_logprobs").asInt(0); t++) {
              top.addObject().put("token", t == 0 ? text : "alt" + t).put("logprob", -0.5 - t);
            }
          }
          write(out, event.toString());
          if (i == 1 && c == 0) {
            firstByteTimes.put(id, new long[] {arrived, System.nanoTime()});
          }
          if (dieAfterFirstToken) {
            x.close();
            return;
          }
          if (errorDetailAfterFirstToken != null) {
            write(
                out,
                JSON.createObjectNode()
                    .put("status", 500)
                    .put("detail", errorDetailAfterFirstToken)
                    .toString());
            return;
          }
          pause();
        }
      for (int i = 0; i < paddingDeltas; i++) {
        write(out, "{\"delta\":\"" + (char) ('a' + i % 26) + "\"}");
      }
      int prompt = claimedTokens >= 0 ? claimedTokens : promptTokens;
      int completion =
          claimedTokens >= 0
              ? claimedTokens
              : claimedCompletion >= 0 ? claimedCompletion : choices * tokens + paddingDeltas;
      long releases =
          claimedReleases >= 0
              ? claimedReleases
              : promptTokens + choices * tokens + paddingDeltas - choices;
      String finish = countToMaxTokens ? "length" : "stop";
      StringBuilder listed = new StringBuilder();
      for (int c = 0; c < choices; c++) {
        listed
            .append(c == 0 ? "" : ",")
            .append("{\"index\":")
            .append(c)
            .append(",\"finish_reason\":\"")
            .append(finish)
            .append("\"}");
      }
      write(
          out,
          "{\"request_id\":\""
              + id
              + "\",\"finish_reason\":\""
              + finish
              + "\",\"choices\":["
              + listed
              + "],\"usage\":{\"prompt_tokens\":"
              + prompt
              + ",\"completion_tokens\":"
              + completion
              + ",\"total_tokens\":"
              + (prompt + completion)
              + "},\"report\":{\"heCalls\":24,\"heEncryptions\":28,"
              + "\"hePlaintextProducts\":28,\"heDecryptions\":28,\"heMillis\":1.5,"
              + "\"dpReleases\":"
              + releases
              + "}}");
    }
  }

  private void pause() {
    try {
      Thread.sleep(delayMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void write(OutputStream out, String data) throws IOException {
    out.write(("data:" + data + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static final io.tensafe.marketplace.tokens.PromptTokenizer TOKENIZER =
      new io.tensafe.marketplace.tokens.PromptTokenizer();
  private static final io.tensafe.chat.template.ChatFormat CHAT =
      new io.tensafe.marketplace.tokens.PlatformChatFormat().format();

  /** The tokens of the prompt a request body carries, as an honest node counts them. */
  static int promptTokens(JsonNode body) {
    if (body.has("messages")) {
      try {
        return TOKENIZER.count(CHAT.prompt(body.get("messages"), body.get("tools")));
      } catch (io.tensafe.chat.template.ChatTemplateException e) {
        throw new IllegalArgumentException(e);
      }
    }
    return TOKENIZER.count(body.path("prompt").asText());
  }

  /** The tokens of a chat request with one user message {@code content}. */
  static int userPromptTokens(String content) {
    return TOKENIZER.count("<|im_start|>user\n" + content + "<|im_end|>\n<|im_start|>assistant\n");
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
