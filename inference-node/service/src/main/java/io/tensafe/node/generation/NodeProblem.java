package io.tensafe.node.generation;

/**
 * An error the node answers with as RFC 9457 problem+json; {@code retryAfterSeconds} is sent as
 * Retry-After when positive.
 */
public final class NodeProblem extends RuntimeException {
  static final String BASE = "https://tensafe.io/problems/";

  private final String type;
  private final int status;
  private final String title;
  private final int retryAfterSeconds;

  NodeProblem(String type, int status, String title, String detail, int retryAfterSeconds) {
    super(detail);
    this.type = BASE + type;
    this.status = status;
    this.title = title;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public static NodeProblem validation(String detail) {
    return new NodeProblem("validation", 400, "Invalid request", detail, 0);
  }

  public static NodeProblem notFound(String detail) {
    return new NodeProblem("not-found", 404, "Not found", detail, 0);
  }

  public static NodeProblem rejectedAdapter(String detail) {
    return new NodeProblem("adapter-rejected", 422, "Adapter rejected", detail, 0);
  }

  public static NodeProblem conflict(String detail) {
    return new NodeProblem("conflict", 409, "Conflict", detail, 0);
  }

  public static NodeProblem unavailable(String detail, int retryAfterSeconds) {
    return new NodeProblem("unavailable", 503, "Service unavailable", detail, retryAfterSeconds);
  }

  String type() {
    return type;
  }

  int status() {
    return status;
  }

  String title() {
    return title;
  }

  int retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
