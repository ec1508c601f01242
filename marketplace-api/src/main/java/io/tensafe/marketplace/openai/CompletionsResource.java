package io.tensafe.marketplace.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smallrye.common.annotation.Blocking;
import io.tensafe.chat.tools.ToolCallAnswer;
import io.tensafe.chat.tools.ToolCallEvent;
import io.tensafe.chat.tools.ToolCallStream;
import io.tensafe.marketplace.apidoc.RateLimitHeaderDocs;
import io.tensafe.marketplace.apikey.ApiKeyAuthenticated;
import io.tensafe.marketplace.apikey.ApiKeyFilter;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.apikey.KeyConfirmedAtAdmission;
import io.tensafe.marketplace.gateway.GatewayMetrics;
import io.tensafe.marketplace.gateway.HostedCompletions;
import io.tensafe.marketplace.gateway.HostedRelay;
import io.tensafe.marketplace.gateway.RequestOutcome;
import io.tensafe.marketplace.problem.ProblemKind;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.security.PermitAll;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.extensions.Extension;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * OpenAI-compatible {@code POST /v1/chat/completions} and {@code POST /v1/completions}, metered
 * ({@link HostedCompletions}), billed for what it relayed. Answers carry OpenAI's {@code usage} and
 * a {@code tensafe} object: the adapter and version that served, why (for {@code auto}), the price
 * and amount charged in micro-units, the ε spent of the client's budget, and the node's HE and DP
 * statistics. Streaming follows OpenAI's server-sent events, with a usage chunk when {@code
 * stream_options.include_usage} is set, then {@code [DONE]}. Every answer whose request drew from
 * the key's requests per minute carries OpenAI's {@code x-ratelimit-*} headers ({@link
 * RateLimitHeaders}).
 */
@Path("/v1")
@PermitAll
@ApiKeyAuthenticated
public class CompletionsResource {
  @Inject HostedCompletions hosted;
  @Inject io.tensafe.marketplace.tokens.PlatformChatFormat chatFormat;
  @Inject ObjectMapper json;
  @Inject GatewayMetrics metrics;
  @Inject org.eclipse.microprofile.context.ManagedExecutor background;
  private RequestJson requestJson;
  private CompletionBodies bodies;

  @jakarta.annotation.PostConstruct
  void readers() {
    requestJson = new RequestJson(json);
    bodies = new CompletionBodies(json);
  }

  @Operation(
      summary = "Create a metered chat completion (OpenAI-compatible; streamed with stream: true)")
  @APIResponse(
      responseCode = "200",
      description = "The completion, or its server-sent events when streamed",
      content =
          @Content(
              mediaType = "application/json",
              schema =
                  @Schema(implementation = io.tensafe.marketplace.apidoc.CompletionAnswer.class)))
  @Extension(name = RateLimitHeaderDocs.MARKER, value = "true")
  @KeyConfirmedAtAdmission
  @POST
  @Path("/chat/completions")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces({MediaType.APPLICATION_JSON, MediaType.SERVER_SENT_EVENTS})
  @Blocking
  public Response chat(
      @org.eclipse.microprofile.openapi.annotations.parameters.RequestBody(
              required = true,
              content =
                  @Content(
                      mediaType = "application/json",
                      schema =
                          @Schema(
                              implementation = io.tensafe.marketplace.apidoc.CompletionBody.class)))
          byte[] body,
      @Context ContainerRequestContext context,
      @Context RoutingContext connection) {
    return serve(body, true, context, connection);
  }

  @Operation(
      summary = "Create a metered text completion (OpenAI-compatible; streamed with stream: true)")
  @APIResponse(
      responseCode = "200",
      description = "The completion, or its server-sent events when streamed",
      content =
          @Content(
              mediaType = "application/json",
              schema =
                  @Schema(implementation = io.tensafe.marketplace.apidoc.CompletionAnswer.class)))
  @Extension(name = RateLimitHeaderDocs.MARKER, value = "true")
  @KeyConfirmedAtAdmission
  @POST
  @Path("/completions")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces({MediaType.APPLICATION_JSON, MediaType.SERVER_SENT_EVENTS})
  @Blocking
  public Response completions(
      @org.eclipse.microprofile.openapi.annotations.parameters.RequestBody(
              required = true,
              content =
                  @Content(
                      mediaType = "application/json",
                      schema =
                          @Schema(
                              implementation = io.tensafe.marketplace.apidoc.CompletionBody.class)))
          byte[] body,
      @Context ContainerRequestContext context,
      @Context RoutingContext connection) {
    return serve(body, false, context, connection);
  }

  private Response serve(
      byte[] body, boolean chat, ContainerRequestContext context, RoutingContext connection) {
    ApiKeyPrincipal key = (ApiKeyPrincipal) context.getProperty(ApiKeyFilter.PROPERTY);
    long arrived = (Long) context.getProperty(ApiKeyFilter.ARRIVED_NANOS);
    CompletionRequest r;
    HostedRelay s;
    try {
      r = CompletionRequest.parse(requestJson.parse(body), chat, chatFormat.format());
      s = hosted.start(key, r.hosted(), level -> RateLimitHeaders.remember(context, level));
    } catch (io.tensafe.marketplace.problem.ApiProblem e) {
      metrics.refused(e.status());
      throw e;
    }
    if (r.request().stream()) {
      // The stream is ended once: by stream() when it runs, or here if the client's connection
      // ends before it ever does (the framework then never calls it).
      AtomicBoolean claimed = new AtomicBoolean();
      connection.addEndHandler(
          ended -> {
            if (claimed.compareAndSet(false, true)) {
              background.execute(() -> s.endEarly(RequestOutcome.CLIENT_GONE));
            }
          });
      if (connection.response().closed() && claimed.compareAndSet(false, true)) {
        // Gone before the handler above was in place: it will never run.
        s.endEarly(RequestOutcome.CLIENT_GONE);
        return Response.noContent().build();
      }
      StreamingOutput out =
          o -> {
            if (claimed.compareAndSet(false, true)) {
              stream(r, s, new ClientConnection(o, connection.response()), arrived);
            }
          };
      return Response.ok(out, MediaType.SERVER_SENT_EVENTS)
          .header("Cache-Control", "no-cache")
          .header("X-Request-Id", s.requestId())
          .build();
    }
    // Passed on below, with the bill: the text, or the tool calls' names and arguments.
    HostedRelay.Whole whole;
    try {
      whole =
          s.relayWhole(
              r.request().tools() == null
                  ? null
                  : text -> ToolCallAnswer.delivered(ToolCallAnswer.events(text, s.requestId())));
    } catch (HostedRelay.NodeFailed e) {
      throw new io.tensafe.marketplace.problem.ApiProblem(
          ProblemKind.HTTP, 502, "Node failed", e.getMessage());
    }
    HostedRelay.Finished billed = whole.billed();
    ObjectNode answer = bodies.envelope(r, s, false);
    var choices = answer.putArray("choices");
    for (int i = 0; i < whole.texts().size(); i++) {
      String text = whole.texts().get(i);
      ObjectNode choice = choices.addObject();
      choice.put("index", i);
      String finishReason = billed.finishReason(i);
      if (r.request().chat()) {
        if (r.request().tools() == null) {
          choice.putObject("message").put("role", "assistant").put("content", text);
        } else {
          ObjectNode message = ToolCallAnswer.message(text, s.requestId());
          choice.set("message", message);
          finishReason = ToolCallAnswer.finishReason(finishReason, message.has("tool_calls"));
        }
        if (whole.logprobs() != null) {
          ObjectNode logprobs = choice.putObject("logprobs");
          logprobs.set("content", whole.logprobs().get(i));
          logprobs.putNull("refusal");
        }
      } else {
        choice.put("text", text);
        choice.putNull("logprobs");
      }
      choice.put("finish_reason", finishReason);
    }
    answer.set("usage", bodies.usage(billed));
    answer.set("tensafe", bodies.tensafe(s, billed));
    return Response.ok(answer, MediaType.APPLICATION_JSON)
        .header("X-Request-Id", s.requestId())
        .build();
  }

  private void stream(CompletionRequest r, HostedRelay s, OutputStream out, long arrivedNanos)
      throws IOException {
    DeltaChunks deltas = new DeltaChunks(json, bodies.chunk(r, s), r.request().chat());
    int n = r.request().choices();
    ToolCallStream[] tools = r.request().tools() == null ? null : new ToolCallStream[n];
    for (int i = 0; tools != null && i < n; i++) {
      tools[i] = ToolCallAnswer.reader(s.requestId());
    }
    HostedRelay.Finished billed;
    try {
      if (r.request().chat()) {
        // Each choice's first chunk names its role, as OpenAI's do.
        for (int i = 0; i < n; i++) {
          ObjectNode first = bodies.chunk(r, s);
          first
              .withArray("choices")
              .addObject()
              .put("index", i)
              .putNull("finish_reason")
              .putObject("delta")
              .put("role", "assistant")
              .put("content", "");
          try {
            sendToClient(out, first);
          } catch (HostedRelay.ClientGone gone) {
            s.endEarly(RequestOutcome.CLIENT_GONE);
            return;
          }
        }
      }
      billed = s.relay(new ClientSink(r, s, out, deltas, tools, arrivedNanos));
    } catch (HostedRelay.ClientGone | HostedRelay.NodeFailed e) {
      try {
        ObjectNode error = json.createObjectNode();
        boolean gone = e instanceof HostedRelay.ClientGone;
        error
            .putObject("error")
            .put(
                "message",
                gone
                    ? "the client went away"
                    : e.getMessage() + "; billed only for the text relayed before it failed")
            .put("type", "server_error")
            .put("code", gone ? "client-gone" : "node-failed")
            .putNull("param");
        send(out, error);
      } catch (IOException ignored) {
        // the client is gone too
      }
      return;
    }
    // Billed: what follows only tells the client, and a client gone by now changes nothing.
    try {
      for (int i = 0; i < n; i++) {
        ObjectNode end = bodies.chunk(r, s);
        ObjectNode choice = end.withArray("choices").addObject().put("index", i);
        if (r.request().chat()) {
          choice.putObject("delta");
        } else {
          choice.put("text", "");
        }
        choice.put(
            "finish_reason",
            ToolCallAnswer.finishReason(
                billed.finishReason(i), tools != null && tools[i].calls() > 0));
        if (i == n - 1) {
          end.set("tensafe", bodies.tensafe(s, billed));
        }
        send(out, end);
      }
      if (r.request().includeUsage()) {
        ObjectNode usage = bodies.chunk(r, s);
        usage.putArray("choices");
        usage.set("usage", bodies.usage(billed));
        send(out, usage);
      }
      out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException gone) {
      // the request is billed; the client left before its last events
    }
  }

  /**
   * Writes a stream's pieces to its client as OpenAI's chunks: the text as it comes, or, when the
   * request offered tools, its content and whole tool calls ({@link ToolCallStream}); says what
   * reached the client, which is what the relay bills.
   */
  private final class ClientSink implements HostedRelay.Sink {
    private final CompletionRequest r;
    private final HostedRelay s;
    private final OutputStream out;
    private final DeltaChunks deltas;
    private final ToolCallStream[] tools;
    private final long arrivedNanos;
    private boolean sentAny;

    /**
     * @param tools each choice's tool-call reader; null when the request offered no tools
     */
    ClientSink(
        CompletionRequest r,
        HostedRelay s,
        OutputStream out,
        DeltaChunks deltas,
        ToolCallStream[] tools,
        long arrivedNanos) {
      this.r = r;
      this.s = s;
      this.out = out;
      this.deltas = deltas;
      this.tools = tools;
      this.arrivedNanos = arrivedNanos;
    }

    @Override
    public HostedRelay.Passed send(HostedRelay.Piece piece) throws HostedRelay.ClientGone {
      if (tools == null) {
        firstToken();
        sendToClient(out, deltas.event(piece.index(), piece.text(), piece.logprobs()));
        return HostedRelay.Passed.AS_READ;
      }
      return sendTools(piece.index(), tools[piece.index()].feed(piece.text()));
    }

    @Override
    public HostedRelay.Passed end(int index) throws HostedRelay.ClientGone {
      return tools == null ? HostedRelay.Passed.NOTHING : sendTools(index, tools[index].finish());
    }

    /** Only what was sent is billed: a call's name and arguments, never the rest of its block. */
    private HostedRelay.Passed sendTools(int index, java.util.List<ToolCallEvent> events)
        throws HostedRelay.ClientGone {
      if (events.isEmpty()) {
        return HostedRelay.Passed.NOTHING; // held (a call's text, or what may open one)
      }
      firstToken();
      relayTools(out, r, s, deltas, index, events);
      return HostedRelay.Passed.as(ToolCallAnswer.delivered(events));
    }

    private void firstToken() {
      if (!sentAny) {
        sentAny = true;
        metrics.firstToken(System.nanoTime() - arrivedNanos);
      }
    }
  }

  private void relayTools(
      OutputStream out,
      CompletionRequest r,
      HostedRelay s,
      DeltaChunks deltas,
      int index,
      java.util.List<ToolCallEvent> events)
      throws HostedRelay.ClientGone {
    for (ToolCallEvent e : events) {
      switch (e) {
        case ToolCallEvent.Content c -> sendToClient(out, deltas.event(index, c.text(), null));
        case ToolCallEvent.Call call -> {
          ObjectNode chunk = bodies.chunk(r, s);
          chunk
              .putArray("choices")
              .addObject()
              .put("index", index)
              .putNull("finish_reason")
              .set("delta", ToolCallAnswer.delta(call));
          sendToClient(out, chunk);
        }
      }
    }
  }

  private void sendToClient(OutputStream out, JsonNode value) throws HostedRelay.ClientGone {
    try {
      send(out, value);
    } catch (IOException e) {
      throw new HostedRelay.ClientGone(e);
    }
  }

  private static void sendToClient(OutputStream out, byte[] event) throws HostedRelay.ClientGone {
    try {
      out.write(event);
      out.flush();
    } catch (IOException e) {
      throw new HostedRelay.ClientGone(e);
    }
  }

  private void send(OutputStream out, JsonNode value) throws IOException {
    out.write(
        ("data: " + json.writeValueAsString(value) + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
