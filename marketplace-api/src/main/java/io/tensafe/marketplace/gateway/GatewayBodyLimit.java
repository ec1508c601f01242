package io.tensafe.marketplace.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tensafe.marketplace.problem.ProblemBody;
import io.tensafe.marketplace.problem.ProblemKind;
import io.tensafe.marketplace.problem.ProblemMappers;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Map;

/**
 * The metered API's own body limit, {@code tensafe.gateway.max-body-bytes} (default 4 MiB), far
 * below the 2 GiB meant for package uploads. Checked on the request line and headers, before any
 * byte of the body is read, authenticated or parsed: a larger {@code Content-Length} is answered
 * 413 at once, and a body without one (chunked) 411, since its size could not be bounded before
 * reading it. Both are problem+json. A private session's frames have {@code
 * tensafe.gateway.max-frame-bytes} (64 MiB) instead.
 */
@ApplicationScoped
public class GatewayBodyLimit {
  @Inject GatewayConfig gateway;

  @Inject ObjectMapper json;

  void install(@Observes Router router) {
    router.route("/v1/*").order(-1000).handler(this::check);
  }

  /** The limit in bytes, ≥ 1. */
  public long maxBodyBytes() {
    return gateway.maxBodyBytes();
  }

  /** A private session's frames ({@code /v1/private/sessions/{id}/frames}) have their own limit. */
  private long limitFor(String path) {
    return path != null && path.startsWith("/v1/private/sessions/") && path.endsWith("/frames")
        ? gateway.maxFrameBytes()
        : gateway.maxBodyBytes();
  }

  private void check(RoutingContext ctx) {
    if (ctx.request().method() != HttpMethod.POST) {
      ctx.next();
      return;
    }
    long limit = limitFor(ctx.normalizedPath());
    String length = ctx.request().getHeader("Content-Length");
    if (length == null) {
      refuse(
          ctx,
          ProblemKind.REQUEST_TOO_LARGE,
          411,
          "Length required",
          "a request body to /v1 needs a Content-Length of at most " + limit + " bytes");
      return;
    }
    long bytes;
    try {
      bytes = Long.parseLong(length.trim());
    } catch (NumberFormatException e) {
      bytes = -1;
    }
    if (bytes < 0) {
      refuse(
          ctx,
          ProblemKind.VALIDATION,
          400,
          "Invalid request",
          "Content-Length '" + length + "' is not a byte count");
    } else if (bytes > limit) {
      refuse(
          ctx,
          ProblemKind.REQUEST_TOO_LARGE,
          413,
          "Request too large",
          "the body has "
              + bytes
              + " bytes; requests to /v1 may have at most "
              + limit
              + (limit == gateway.maxBodyBytes() ? "" : " (a private-session frame)"));
    } else {
      ctx.next();
    }
  }

  private void refuse(
      RoutingContext ctx, ProblemKind kind, int status, String title, String detail) {
    Map<String, Object> body = ProblemBody.of(kind.uri(), status, title, detail, null, null);
    String text;
    try {
      text = json.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    ctx.response()
        .setStatusCode(status)
        .putHeader("Content-Type", ProblemMappers.MEDIA_TYPE)
        .end(text);
  }
}
