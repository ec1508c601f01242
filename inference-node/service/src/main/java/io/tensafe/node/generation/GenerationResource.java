package io.tensafe.node.generation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.tensafe.node.config.NodeConfig;
import io.tensafe.node.runtime.TextDelta;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * {@code POST /v1/generate}: a completion of the served model, as one JSON answer. {@code POST
 * /v1/generate/stream}: the same as server-sent events: {@code {"index": i, "delta": "...",
 * "prompt_tokens": p, "completion_tokens": n}} chunks as text becomes final ({@code i} the choice,
 * {@code n} the tokens that choice generated up to and including this piece, so a forwarder knows
 * what the text it passed on stands for; with {@code logprobs}, a {@code "logprobs"} array of the
 * entries of the tokens the piece's text starts, in OpenAI's shape), choice after choice, then one
 * {@code {"request_id", "finish_reason", "choices": [{"index", "finish_reason",
 * "completion_tokens"}], "usage", "report"}}; a client that disconnects cancels the generation (its
 * usage, up to then, is still reported). The usage report is in the outbox before the last chunk or
 * the JSON answer is sent.
 */
@Path("/v1/generate")
public class GenerationResource {
  @Inject ModelService model;
  @Inject NodeConfig config;
  @Inject ObjectMapper json;

  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  @Blocking
  public GenerationResult generate(GenerationRequest request) {
    if (request == null) {
      throw NodeProblem.validation("a JSON body is required");
    }
    if (Boolean.TRUE.equals(request.stream())) {
      throw NodeProblem.validation("streamed generation is POST /v1/generate/stream");
    }
    return GenerationResult.of(model.generate(request, s -> {}));
  }

  @POST
  @Path("/stream")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.SERVER_SENT_EVENTS)
  @RestStreamElementType(MediaType.TEXT_PLAIN)
  @Blocking
  public Multi<String> generateStream(GenerationRequest request) {
    if (request == null) {
      throw NodeProblem.validation("a JSON body is required");
    }
    model.prompt(request);
    RequestInputs.parameters(request, config.maxNewTokens());
    RequestInputs.choices(request);
    if (request.adapter() != null) {
      // Load the adapter before the stream opens, so that an unknown or unfit adapter is a
      // problem+json answer (the marketplace then tries another node), not a broken stream.
      model.adapter(request.adapter());
    }
    return stream(request);
  }

  private Multi<String> stream(GenerationRequest request) {
    AtomicBoolean cancelled = new AtomicBoolean();
    boolean logprobs = Boolean.TRUE.equals(request.logprobs());
    return Multi.createFrom()
        .<String>emitter(
            emitter -> {
              emitter.onTermination(() -> cancelled.set(true));
              try {
                ModelService.Served served =
                    model.generate(
                        request,
                        delta -> {
                          if (cancelled.get()) {
                            throw new CancellationException("the client went away");
                          }
                          emitter.emit(write(event(delta, logprobs)));
                        });
                if (cancelled.get()) {
                  emitter.complete();
                  return;
                }
                GenerationResult result = GenerationResult.of(served);
                Map<String, Object> last = new LinkedHashMap<>();
                last.put("request_id", result.requestId());
                last.put("finish_reason", result.finishReason());
                last.put(
                    "choices",
                    result.choices().stream()
                        .map(
                            c ->
                                Map.of(
                                    "index",
                                    c.index(),
                                    "finish_reason",
                                    c.finishReason(),
                                    "completion_tokens",
                                    c.completionTokens()))
                        .toList());
                last.put("usage", result.usage());
                last.put("report", result.report());
                emitter.emit(write(last));
                emitter.complete();
              } catch (RuntimeException e) {
                emitter.fail(e);
              }
            })
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
  }

  private static Map<String, Object> event(TextDelta delta, boolean logprobs) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("index", delta.index());
    event.put("delta", delta.text());
    event.put("prompt_tokens", delta.promptTokens());
    event.put("completion_tokens", delta.completionTokens());
    if (logprobs) {
      event.put("logprobs", GenerationResult.entries(delta.logprobs()));
    }
    return event;
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
