package io.tensafe.marketplace.problem;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one body of every error: RFC 9457 problem+json ({@code type}, {@code title}, {@code status},
 * {@code detail}, and {@code errors} for field lists) plus OpenAI's {@code error} object ({@code
 * message}, {@code type}, {@code code}, {@code param}), which the OpenAI SDKs read to build the
 * exception a client sees. Both describe the same occurrence: {@code error.message} is the {@code
 * detail}, {@code error.code} the last segment of the problem {@code type} (stable, e.g. {@code
 * privacy-budget-exhausted}), {@code error.type} OpenAI's class for the status, and {@code
 * error.param} the request field at fault, or null.
 */
public final class ProblemBody {
  private ProblemBody() {}

  /**
   * @param type a {@link ProblemKind} URI
   * @param status the HTTP status, 400..599
   * @param param the request field at fault (e.g. {@code messages[0].content}), or null
   * @param errors per-field errors, or null
   */
  public static Map<String, Object> of(
      String type,
      int status,
      String title,
      String detail,
      String param,
      List<Map<String, String>> errors) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", type);
    body.put("title", title);
    body.put("status", status);
    body.put("detail", detail);
    if (errors != null) {
      body.put("errors", errors);
    }
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("message", detail);
    error.put("type", openAiType(type, status));
    error.put("code", type.substring(type.lastIndexOf('/') + 1));
    error.put("param", param);
    body.put("error", error);
    return body;
  }

  /**
   * OpenAI's error class for a status: {@code invalid_request_error} (4xx other than these), {@code
   * authentication_error} (401), {@code permission_error} (403), {@code insufficient_quota} (an
   * exhausted privacy budget or private-token quota), {@code rate_limit_error} (other 429s), {@code
   * server_error} (5xx).
   */
  static String openAiType(String type, int status) {
    if (status >= 500) {
      return "server_error";
    }
    return switch (status) {
      case 401 -> "authentication_error";
      case 403 -> "permission_error";
      case 429 ->
          type.equals(ProblemKind.PRIVACY_BUDGET_EXHAUSTED.uri())
                  || type.equals(ProblemKind.PRIVATE_TOKENS_EXHAUSTED.uri())
              ? "insufficient_quota"
              : "rate_limit_error";
      default -> "invalid_request_error";
    };
  }
}
