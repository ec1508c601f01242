package io.tensafe.marketplace.privatemode;

import com.fasterxml.jackson.databind.JsonNode;
import io.smallrye.common.annotation.Blocking;
import io.tensafe.marketplace.apikey.ApiKeyAuthenticated;
import io.tensafe.marketplace.apikey.ApiKeyFilter;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.apikey.KeyConfirmedAtAdmission;
import io.tensafe.marketplace.gateway.GatewayConfig;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.security.PermitAll;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.InputStream;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;

/**
 * Private mode's API (ADR 0017), authenticated by the API key like {@code /v1/chat/completions}:
 *
 * <ul>
 *   <li>{@code POST /v1/private/sessions} (JSON {@link PrivateSessionRequest}) → 201 {@code {id,
 *       object, model, adapter, version, plan: {groups: [{sites: [{path, input_width, output_width,
 *       rank}]}]}, clip_norm, base_model: {id, config_sha256}, prefill_chunk_tokens,
 *       max_prompt_tokens, max_tokens, max_frame_bytes}};
 *   <li>{@code POST /v1/private/sessions/{id}/frames}: one binary client frame ({@code
 *       application/octet-stream}, at most {@code tensafe.gateway.max-frame-bytes}) → the node's
 *       answer frame; one at a time per session (429 otherwise); the session, the key, the key's
 *       rate and the replica's frame bytes in flight are checked before the body is read, and the
 *       body is streamed to the node ({@link PrivateFrames});
 *   <li>{@code DELETE /v1/private/sessions/{id}} → 200 {@code {id, object, usage, tensafe}}: the
 *       bill, from the frames the marketplace counted.
 * </ul>
 */
@Path("/v1/private/sessions")
@PermitAll
@ApiKeyAuthenticated
public class PrivateSessionResource {
  @Inject PrivateSessions sessions;
  @Inject PrivateFrames frames;
  @Inject GatewayConfig gateway;

  @Operation(summary = "Open a private session: reserve the budget and open it on a node")
  @APIResponseSchema(
      value = OpenedSession.class,
      responseCode = "201",
      responseDescription = "The session is open; send its frames")
  @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(
      responseCode = "403",
      description =
          "The version's creator does not offer private mode for it (private-mode-not-offered);"
              + " nothing was taken")
  @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(
      responseCode = "429",
      description =
          "Too many requests for this key, its privacy budget is spent or reserved, or its"
              + " organisation's private-token quota of the version is spent or held by sessions"
              + " in flight (private-token-quota-exhausted, private-token-quota-reserved)")
  @KeyConfirmedAtAdmission
  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  @Blocking
  public Response open(PrivateSessionRequest request, @Context ContainerRequestContext context) {
    PrivateSessions.Opened o = sessions.open(key(context), request);
    JsonNode node = o.nodeAnswer();
    String model = o.version().adapterId() + "@" + o.version().version();
    return Response.status(201)
        .entity(
            new OpenedSession(
                o.id().toString(),
                "tensafe.private_session",
                model,
                o.version().adapterId(),
                o.version().version(),
                new OpenedSession.Plan(node.path("groups"), node.path("rings")),
                node.path("clip_norm").asDouble(),
                new OpenedSession.BaseModel(o.version().baseModel(), o.configSha256()),
                node.path("prefill_chunk_tokens").asInt(),
                gateway.maxFrameBytes(),
                new OpenedSession.Terms(
                    node.path("a_row_l2_log2").asInt(),
                    node.path("b_row_l1_log2").asInt(),
                    node.path("spectral_log2").asInt(),
                    node.path("upload_seed_key").asText(),
                    node.path("noised_sites_per_token").asInt(),
                    node.path("fleet_key_id").asText())))
        .build();
  }

  @Operation(summary = "Relay one binary frame of a private session to its node")
  @POST
  @Path("/{id}/frames")
  @Consumes(MediaType.APPLICATION_OCTET_STREAM)
  @Produces(MediaType.APPLICATION_OCTET_STREAM)
  @Blocking
  public byte[] frame(
      @PathParam("id") String id,
      InputStream body,
      @Context ContainerRequestContext context,
      @Context RoutingContext http) {
    try {
      // GatewayBodyLimit let through only a Content-Length within max-frame-bytes.
      return frames.relay(
          key(context), id, context.getLength(), body, () -> http.response().reset());
    } catch (RuntimeException e) {
      closeAfterAnswer(http);
      throw e;
    }
  }

  /**
   * A refused frame's body may be partly unsent or unread (refused before it, or while it
   * streamed): over HTTP/1.1 its connection closes once the answer is written, so the client sends
   * no more of it and the server reads no more of it.
   */
  private static void closeAfterAnswer(RoutingContext http) {
    if (http.request().version() != HttpVersion.HTTP_2) {
      http.response().putHeader("Connection", "close");
      http.addEndHandler(done -> http.response().close());
    }
  }

  @Operation(summary = "End a private session and bill what it was served")
  @APIResponseSchema(
      value = SessionBillView.class,
      responseCode = "200",
      responseDescription = "The session ended; its bill")
  @DELETE
  @Path("/{id}")
  @Produces(MediaType.APPLICATION_JSON)
  @Blocking
  public SessionBillView close(
      @PathParam("id") String id, @Context ContainerRequestContext context) {
    return SessionBillView.of(id, sessions.close(key(context), id));
  }

  private static ApiKeyPrincipal key(ContainerRequestContext context) {
    return (ApiKeyPrincipal) context.getProperty(ApiKeyFilter.PROPERTY);
  }
}
