package io.tensafe.marketplace.problem;

/** The stable {@code type} URIs of the API's problems; documented in the OpenAPI description. */
public final class ProblemTypes {
  private static final String BASE = "https://tensafe.io/problems/";

  public static final String VALIDATION = BASE + "validation";
  public static final String NOT_FOUND = BASE + "not-found";
  public static final String FORBIDDEN = BASE + "forbidden";
  public static final String UNAUTHORIZED = BASE + "unauthorized";
  public static final String CONFLICT = BASE + "conflict";
  public static final String KEY_INVALID = BASE + "signing-key-invalid";
  public static final String PACKAGE_TOO_LARGE = BASE + "package-too-large";
  public static final String PACKAGE_TRUNCATED = BASE + "package-truncated";
  public static final String PACKAGE_MALFORMED = BASE + "package-malformed";
  public static final String PACKAGE_SIGNATURE = BASE + "package-signature-invalid";
  public static final String PACKAGE_UNKNOWN_SIGNER = BASE + "package-unknown-signer";
  public static final String PACKAGE_WRONG_FLEET = BASE + "package-wrong-fleet";
  public static final String PACKAGE_MANIFEST = BASE + "package-manifest-rejected";
  public static final String PACKAGE_INCOMPATIBLE = BASE + "package-incompatible";
  public static final String ADAPTER_INCOMPATIBLE = BASE + "adapter-incompatible";
  public static final String VERSION_NOT_NEWER = BASE + "version-not-newer";
  public static final String HTTP = BASE + "http";
  public static final String INTERNAL = BASE + "internal";
  public static final String RATE_LIMITED = BASE + "rate-limited";
  public static final String SERVICE_BUSY = BASE + "service-busy";
  public static final String PRICE_ABOVE_CAP = BASE + "price-above-cap";
  public static final String REQUEST_TOO_LARGE = BASE + "request-too-large";
  public static final String PRIVACY_BUDGET_EXHAUSTED = BASE + "privacy-budget-exhausted";
  public static final String PRIVACY_BUDGET_RESERVED = BASE + "privacy-budget-reserved";
  public static final String PRIVACY_BUDGET_TOO_SMALL = BASE + "privacy-budget-too-small";

  private ProblemTypes() {}

  public static ApiProblem notFound(String what) {
    return new ApiProblem(NOT_FOUND, 404, "Not found", what + " does not exist or is not yours");
  }

  public static ApiProblem validation(String detail) {
    return new ApiProblem(VALIDATION, 400, "Invalid request", detail);
  }

  /** A 400 about the request field {@code param} (a path such as {@code messages[0].content}). */
  public static ApiProblem validation(String param, String detail) {
    return new ApiProblem(VALIDATION, 400, "Invalid request", detail).withParam(param);
  }

  public static ApiProblem conflict(String detail) {
    return new ApiProblem(CONFLICT, 409, "Conflict", detail);
  }
}
