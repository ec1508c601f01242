package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.privacy.ReleaseKind;
import io.tensafe.marketplace.privacy.Reservation;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.UUID;

/**
 * Admits a routed request in one transaction: records it ({@code gateway_request}, assigned to the
 * node it goes to first) and reserves its DP budget. Either both happen or neither: a request the
 * budget cannot cover leaves no record and no reservation. One commit before dispatch keeps the
 * latency the gateway adds low (see {@code ./tensafe bench gateway}).
 */
@ApplicationScoped
public class RequestAdmission {
  @Inject PrivacyBudgets budgets;

  /**
   * Records and reserves.
   *
   * @param releases the most DP releases the request can make (at least 1): noised inputs for a
   *     hosted request, noised site outputs for a private session ({@link ReleaseKind})
   * @throws io.tensafe.marketplace.problem.ApiProblem 429 when the budget cannot cover {@code
   *     releases}
   */
  @Transactional
  public Reservation admit(
      String requestId, GatewayRequests.Context context, UUID firstNode, long releases) {
    return admit(requestId, context, firstNode, releases, RequestMode.HOSTED);
  }

  /**
   * As {@link #admit(String, GatewayRequests.Context, UUID, long)}, for a request of {@code mode}.
   */
  @Transactional
  public Reservation admit(
      String requestId,
      GatewayRequests.Context context,
      UUID firstNode,
      long releases,
      RequestMode mode) {
    return admit(requestId, context, firstNode, releases, mode, () -> {});
  }

  /**
   * Records, reserves, then runs {@code beforeCommit}, which may send the request to its node so
   * that the node starts while the transaction commits: by then the request's record and lock are
   * in place (a report from the node waits for this transaction's end) and its reservation is made
   * (a request the budget refuses never reaches a node). Nothing reaches the client before the
   * caller has the commit; if the commit fails, the caller abandons what it sent (the node cancels,
   * and its report, finding no request, bills nothing).
   */
  @Transactional
  public Reservation admit(
      String requestId,
      GatewayRequests.Context context,
      UUID firstNode,
      long releases,
      RequestMode mode,
      Runnable beforeCommit) {
    // One database call records the request (as GatewayRequests.open) and reserves (V28).
    Reservation reservation =
        budgets.admit(
            context.clientOrganisationId(),
            context.adapterRef(),
            context.version(),
            requestId,
            releases,
            mode == RequestMode.PRIVATE ? ReleaseKind.NOISED_SITE : ReleaseKind.NOISED_INPUT,
            Instant.now(),
            new PrivacyBudgets.RequestRecord(
                context.apiKeyId(),
                context.routeReason(),
                context.startedAt(),
                firstNode,
                context.limits().maxPromptTokens(),
                context.limits().maxCompletionTokens(),
                context.limits().promptTokens(),
                mode.column()));
    beforeCommit.run();
    return reservation;
  }
}
