package io.tensafe.marketplace.problem;

/**
 * Every kind of problem the API answers with: its stable {@code type} URI (never changes once
 * published; clients switch on it), and the status and title it has unless a raiser says otherwise
 * ({@link ApiProblem#ApiProblem(ProblemKind, int, String, String)}).
 */
public enum ProblemKind {
  VALIDATION("validation", 400, "Invalid request"),
  NOT_FOUND("not-found", 404, "Not found"),
  FORBIDDEN("forbidden", 403, "Forbidden"),
  UNAUTHORIZED("unauthorized", 401, "Unauthorized"),
  CONFLICT("conflict", 409, "Conflict"),
  KEY_INVALID("signing-key-invalid", 400, "Invalid signing key"),
  PACKAGE_TOO_LARGE("package-too-large", 413, "Package too large"),
  PACKAGE_TRUNCATED("package-truncated", 400, "Package truncated"),
  PACKAGE_MALFORMED("package-malformed", 422, "Malformed package"),
  PACKAGE_SIGNATURE("package-signature-invalid", 422, "Invalid signature"),
  PACKAGE_UNKNOWN_SIGNER("package-unknown-signer", 422, "Unknown signer"),
  PACKAGE_WRONG_FLEET("package-wrong-fleet", 422, "Not encrypted to a known fleet"),
  PACKAGE_MANIFEST("package-manifest-rejected", 422, "Manifest rejected"),
  PACKAGE_INCOMPATIBLE("package-incompatible", 422, "Adapter does not fit its base model"),
  ADAPTER_INCOMPATIBLE("adapter-incompatible", 422, "Adapter cannot run"),
  VERSION_NOT_NEWER("version-not-newer", 409, "Version not newer"),
  /** A status the HTTP layer chose (an unknown path, a wrong method); raisers give it. */
  HTTP("http", 400, "Bad request"),
  INTERNAL("internal", 500, "Internal error"),
  RATE_LIMITED("rate-limited", 429, "Too many requests"),
  SERVICE_BUSY("service-busy", 503, "Service busy"),
  PRICE_ABOVE_CAP("price-above-cap", 422, "Price above this key's cap"),
  REQUEST_TOO_LARGE("request-too-large", 413, "Request too large"),
  PRIVACY_BUDGET_EXHAUSTED("privacy-budget-exhausted", 429, "Privacy budget exhausted"),
  PRIVACY_BUDGET_RESERVED(
      "privacy-budget-reserved", 429, "Privacy budget held by requests in flight"),
  PRIVACY_BUDGET_TOO_SMALL("privacy-budget-too-small", 422, "Request exceeds the privacy budget"),
  /** The version's creator does not offer private mode for it (issue 49). */
  PRIVATE_MODE_NOT_OFFERED("private-mode-not-offered", 403, "Private mode not offered"),
  PRIVATE_TOKENS_EXHAUSTED(
      "private-token-quota-exhausted", 429, "Private-token quota exhausted for this period"),
  PRIVATE_TOKENS_RESERVED(
      "private-token-quota-reserved", 429, "Private-token quota held by sessions in flight"),
  PRIVATE_TOKENS_TOO_SMALL(
      "private-token-quota-too-small", 422, "Session exceeds the private-token quota");

  private static final String BASE = "https://tensafe.io/problems/";

  private final String slug;
  private final int status;
  private final String title;

  ProblemKind(String slug, int status, String title) {
    this.slug = slug;
    this.status = status;
    this.title = title;
  }

  /** The {@code type} URI, {@code https://tensafe.io/problems/<slug>}. */
  public String uri() {
    return BASE + slug;
  }

  /** The last segment of {@link #uri()}, as OpenAI's {@code error.code} carries it. */
  public String slug() {
    return slug;
  }

  /** The HTTP status, 400 to 599. */
  public int status() {
    return status;
  }

  public String title() {
    return title;
  }
}
