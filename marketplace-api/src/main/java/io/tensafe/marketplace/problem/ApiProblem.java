package io.tensafe.marketplace.problem;

/**
 * An error the API reports as RFC 9457 problem+json. Its {@link ProblemKind} gives the stable
 * {@code type}; {@code detail} explains this occurrence and never holds secrets or stack traces.
 */
public class ApiProblem extends RuntimeException {
  private final ProblemKind kind;
  private final int status;
  private final String title;
  private final int retryAfterSeconds;
  private String param;

  /** A problem of {@code kind} with the kind's status and title. */
  public ApiProblem(ProblemKind kind, String detail) {
    this(kind, kind.status(), kind.title(), detail, 0);
  }

  /** A problem of {@code kind} with the kind's status and title, to retry after that long. */
  public ApiProblem(ProblemKind kind, String detail, int retryAfterSeconds) {
    this(kind, kind.status(), kind.title(), detail, retryAfterSeconds);
  }

  /** A problem of {@code kind} whose status or title this occurrence sets itself. */
  public ApiProblem(ProblemKind kind, int status, String title, String detail) {
    this(kind, status, title, detail, 0);
  }

  /**
   * @param retryAfterSeconds sent as {@code Retry-After} when positive (503 and 429 answers)
   */
  public ApiProblem(
      ProblemKind kind, int status, String title, String detail, int retryAfterSeconds) {
    super(detail);
    this.kind = kind;
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

  /** The {@code type} URI of this problem's kind. */
  public String type() {
    return kind.uri();
  }

  public ProblemKind kind() {
    return kind;
  }

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }
}
