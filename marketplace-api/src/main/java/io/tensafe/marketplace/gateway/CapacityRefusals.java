package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;

/**
 * The refusals for want of a node, written once for the admission's call ({@link RequestAdmission})
 * and the in-memory node choice ({@link Dispatch}).
 */
final class CapacityRefusals {
  private CapacityRefusals() {}

  /**
   * 503 with Retry-After: no node of {@code version}'s fleet serving its base model can be
   * dispatched to at all (none healthy, or each kept out by its breaker): refused at once, not
   * waited for.
   */
  static ApiProblem noNodeServing(ServedVersion version) {
    return new ApiProblem(
        ProblemKind.HTTP,
        503,
        "No capacity",
        "no healthy node serving " + version.baseModel() + " can take requests now",
        2);
  }
}
