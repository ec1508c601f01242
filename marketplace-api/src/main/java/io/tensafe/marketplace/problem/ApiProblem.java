package io.tensafe.marketplace.problem;

/**
 * An error the API reports as RFC 9457 problem+json. {@code type} is a stable identifier of the
 * kind of error ({@link ProblemTypes}); {@code detail} explains this occurrence and never holds
 * secrets or stack traces.
 */
public class ApiProblem extends RuntimeException {
  private final String type;
  private final int status;
  private final String title;
  private final int retryAfterSeconds;
  private String param;

  public ApiProblem(String type, int status, String title, String detail) {
    this(type, status, title, detail, 0);
  }

  /**
   * @param retryAfterSeconds sent as {@code Retry-After} when positive (503 and 429 answers)
   */
  public ApiProblem(String type, int status, String title, String detail, int retryAfterSeconds) {
    super(detail);
    this.type = type;
    this.status = status;
    this.title = title;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /**
   * Names the request field at fault (OpenAI's {@code error.param}); set once, while the problem is
   * being raised.
   *
   * @return this problem
   */
  public ApiProblem withParam(String field) {
    this.param = field;
    return this;
  }

  /** The request field at fault, or null. */
  public String param() {
    return param;
  }

  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }

  public String type() {
    return type;
  }

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }
}
