package io.tensafe.marketplace.privacy;

import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;

/**
 * The three reasons a DP reservation is refused, which a client must handle differently:
 *
 * <ul>
 *   <li>{@link #NEVER_FITS}: the request costs more than the whole period's budget (a very long
 *       prompt, a large {@code max_tokens}, or a policy too strict for one request). Waiting never
 *       helps: 422, not retryable.
 *   <li>{@link #WAIT_FOR_IN_FLIGHT}: it would fit once requests in flight settle (they reserve
 *       their worst case and usually return most of it): 429 with a short Retry-After.
 *   <li>{@link #SPENT}: what has been settled this period leaves too little: 429 with Retry-After
 *       until the period resets.
 * </ul>
 *
 * All amounts are zCDP ρ.
 */
enum BudgetRefusal {
  NEVER_FITS,
  WAIT_FOR_IN_FLIGHT,
  SPENT;

  /** Seconds a client waiting for requests in flight is asked to wait. */
  static final int IN_FLIGHT_RETRY_SECONDS = 2;

  /**
   * @param cost the refused reservation's ρ, > 0
   * @param capacity the period's limit plus top-ups
   * @param spent ρ spent or reserved now, in flight included
   * @param inFlight ρ reserved by requests not yet settled or refunded, ≤ {@code spent}
   */
  static BudgetRefusal of(
      BigDecimal cost, BigDecimal capacity, BigDecimal spent, BigDecimal inFlight) {
    if (cost.compareTo(capacity) > 0) {
      return NEVER_FITS;
    }
    BigDecimal settled = spent.subtract(inFlight);
    return settled.add(cost).compareTo(capacity) <= 0 ? WAIT_FOR_IN_FLIGHT : SPENT;
  }

  /** The problem for this refusal; {@code figures} describes the budget and the request. */
  ApiProblem problem(String figures, OffsetDateTime periodEnd, OffsetDateTime now) {
    return switch (this) {
      case NEVER_FITS ->
          new ApiProblem(
              ProblemKind.PRIVACY_BUDGET_TOO_SMALL,
              "the request can never fit: "
                  + figures
                  + " exceed the whole period's budget; ask for fewer max_tokens or send a"
                  + " shorter prompt");
      case WAIT_FOR_IN_FLIGHT ->
          new ApiProblem(
              ProblemKind.PRIVACY_BUDGET_RESERVED,
              "requests in flight hold the rest of "
                  + figures
                  + "; they return what they do not use when they end: retry shortly",
              IN_FLIGHT_RETRY_SECONDS);
      case SPENT ->
          new ApiProblem(
              ProblemKind.PRIVACY_BUDGET_EXHAUSTED,
              "the period's spending leaves too little of "
                  + figures
                  + "; ask for fewer max_tokens or a shorter prompt; it resets at "
                  + periodEnd,
              (int)
                  Math.min(
                      Integer.MAX_VALUE,
                      Math.max(1, Duration.between(now, periodEnd).toSeconds())));
    };
  }
}
