package io.tensafe.marketplace.apidoc;

import java.util.List;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

/**
 * Documents OpenAI's {@code x-ratelimit-*-requests} headers on the operations that send them
 * (marked {@code @Extension(name = RateLimitHeaderDocs.MARKER, value = "true")}, the mark removed
 * here): on their success and their 429, which {@link ProblemResponses} adds first.
 */
public final class RateLimitHeaderDocs {
  /** The extension that marks an operation whose answers carry the headers. */
  public static final String MARKER = "x-tensafe-rate-limit-headers";

  private RateLimitHeaderDocs() {}

  private record Documented(String name, Schema.SchemaType type, String description) {}

  private static final List<Documented> HEADERS =
      List.of(
          new Documented(
              "x-ratelimit-limit-requests",
              Schema.SchemaType.INTEGER,
              "Requests the API key may start per minute"),
          new Documented(
              "x-ratelimit-remaining-requests",
              Schema.SchemaType.INTEGER,
              "Whole requests the key's allowance holds after this request"),
          new Documented(
              "x-ratelimit-reset-requests",
              Schema.SchemaType.STRING,
              "How long until the key's allowance is full again, as OpenAI writes it (20ms, 1.5s,"
                  + " 1m0s)"));

  /** Adds the headers to a marked operation's 200 and 429, and removes the mark. */
  static void complete(Operation op) {
    if (op.getExtensions() == null || !op.getExtensions().containsKey(MARKER)) {
      return;
    }
    op.removeExtension(MARKER);
    for (String code : List.of("200", "429")) {
      APIResponse r = op.getResponses().getAPIResponse(code);
      if (r == null) {
        continue;
      }
      for (Documented h : HEADERS) {
        Header header =
            OASFactory.createHeader()
                .description(h.description())
                .schema(OASFactory.createSchema().addType(h.type()));
        r.addHeader(h.name(), header);
      }
    }
  }
}
