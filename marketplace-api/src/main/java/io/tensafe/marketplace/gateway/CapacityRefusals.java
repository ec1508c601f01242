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

  /**
   * 503 with Retry-After: every node the admission chose for {@code version} has an endpoint this
   * replica may not call (ADR 0028); refused at once (the same nodes would be chosen again, and
   * each try is an admitted request ended unserved, ADR 0042). The endpoints go to the log only.
   */
  static ApiProblem noUsableNode(ServedVersion version) {
    return new ApiProblem(
        ProblemKind.HTTP,
        503,
        "No capacity",
        "no node serving " + version.baseModel() + " can be reached now; nothing was billed",
        2);
  }
}
