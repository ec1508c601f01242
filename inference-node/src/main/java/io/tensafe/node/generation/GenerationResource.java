package io.tensafe.node.generation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.tensafe.node.runtime.Generation;
import io.tensafe.node.runtime.SamplingParameters;
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
 * /v1/generate/stream}: the same as server-sent events: {@code {"delta": "..."}} chunks as text
 * becomes final, then one {@code {"finish_reason": ..., "usage": {...}}}; a client that disconnects
 * cancels the generation.
 */
@Path("/v1/generate")
public class GenerationResource {
  @Inject ModelService model;
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
    Generation g = model.generate(model.prompt(request), model.parameters(request), s -> {});
    return result(g);
  }

  @POST
  @Path("/stream")
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.SERVER_SENT_EVENTS)
  @RestStreamElementType(MediaType.TEXT_PLAIN)
  public Multi<String> generateStream(GenerationRequest request) {
    if (request == null) {
      throw NodeProblem.validation("a JSON body is required");
    }
    return stream(model.prompt(request), model.parameters(request));
  }

  private Multi<String> stream(String prompt, SamplingParameters parameters) {
    AtomicBoolean cancelled = new AtomicBoolean();
    return Multi.createFrom()
        .<String>emitter(
            emitter -> {
              emitter.onTermination(() -> cancelled.set(true));
              try {
                Generation g =
                    model.generate(
                        prompt,
                        parameters,
                        delta -> {
                          if (cancelled.get()) {
                            throw new CancellationException("the client went away");
                          }
                          emitter.emit(write(Map.of("delta", delta)));
                        });
                Map<String, Object> last = new LinkedHashMap<>();
                last.put("finish_reason", g.finishReason());
                last.put("usage", result(g).usage());
                emitter.emit(write(last));
                emitter.complete();
              } catch (CancellationException e) {
                emitter.complete();
              } catch (RuntimeException e) {
                emitter.fail(e);
              }
            })
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
  }

  private static GenerationResult result(Generation g) {
    return new GenerationResult(
        g.text(),
        g.finishReason(),
        new GenerationResult.Usage(
            g.promptTokens(), g.completionTokens(), g.promptTokens() + g.completionTokens()));
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
