package io.tensafe.marketplace.problem;

/** The problems most raisers need, of the {@link ProblemKind}s every API shares. */
public final class ProblemTypes {
  private ProblemTypes() {}

  public static ApiProblem notFound(String what) {
    return new ApiProblem(ProblemKind.NOT_FOUND, what + " does not exist or is not yours");
  }

  public static ApiProblem validation(String detail) {
    return new ApiProblem(ProblemKind.VALIDATION, detail);
  }

  /** A 400 about the request field {@code param} (a path such as {@code messages[0].content}). */
  public static ApiProblem validation(String param, String detail) {
    return new ApiProblem(ProblemKind.VALIDATION, detail).withParam(param);
  }

  public static ApiProblem conflict(String detail) {
    return new ApiProblem(ProblemKind.CONFLICT, detail);
  }
}
