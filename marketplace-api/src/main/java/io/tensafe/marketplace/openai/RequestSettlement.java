package io.tensafe.marketplace.openai;

import io.quarkus.logging.Log;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.billing.ChargeLedger;
import io.tensafe.marketplace.billing.ChargeView;
import io.tensafe.marketplace.billing.NewCharge;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.privacy.ReleaseCount;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/**
 * Bills a dispatched request when the gateway ends it, in one transaction with its end record
 * ({@code gateway_request.outcome}):
 *
 * <ul>
 *   <li>completed: the node's final counts are charged, and the DP reservation is settled to the
 *       releases the node made ({@link ReleaseCount}: its report, and never less than its token
 *       counts imply);
 *   <li>cut short (the client left, the node failed): the text the client was sent is charged, in
 *       the node's counts for it ({@link Delivered}); tokens the node made but the client never saw
 *       cost no money. The DP reservation stays reserved: the node released inputs the gateway
 *       cannot count, and its usage report settles it ({@code UsageEvents}). A node that never
 *       reports (killed) leaves the whole reservation spent, which errs on the client's privacy.
 * </ul>
 *
 * A node report for a request ended here bills nothing more; one that got in first (a race only at
 * the very end of a stream) stands, and this logs the difference. Either way each request is billed
 * once.
 */
@ApplicationScoped
public class RequestSettlement {
  @Inject ChargeLedger charges;
  @Inject PrivacyBudgets budgets;
  @Inject GatewayRequests requests;

  /**
   * What a completed request was billed: its charge, and its budget's ε spent once this request was
   * settled (the reservation's figure if a node report settled it first).
   */
  public record Settled(ChargeView charge, double epsilonSpent) {}

  @Transactional
  public Settled completed(MeteredCompletions.Started s, ApiKeyPrincipal key, NodeUsage u) {
    ChargeView charge = charges.record(charge(s, key, u.promptTokens(), u.completionTokens()));
    requests.end(s.requestId(), RequestOutcome.COMPLETED, u.promptTokens(), u.completionTokens());
    // Last: the budget row is locked from this update to the commit.
    double epsilon =
        budgets
            .settleReported(
                s.requestId(),
                ReleaseCount.settled(
                    u.dpReleases(),
                    u.promptTokens(),
                    u.completionTokens(),
                    s.version().releasesPerToken()))
            .orElse(s.reservation().epsilonSpent());
    return new Settled(charge, epsilon);
  }

  /** Bills what {@code delivered} says the client got (nothing when it got no token). */
  @Transactional
  public void endedEarly(
      MeteredCompletions.Started s,
      ApiKeyPrincipal key,
      RequestOutcome outcome,
      Delivered delivered) {
    if (delivered.completionTokens() > 0) {
      ChargeView c =
          charges.recordUnlessBilled(
              charge(s, key, delivered.promptTokens(), delivered.completionTokens()));
      if (c.completionTokens() != delivered.completionTokens()) {
        Log.warnf(
            "request %s: the node's report billed %d completion tokens before the gateway could"
                + " bill the %d it delivered; the first charge stands",
            s.requestId(), c.completionTokens(), delivered.completionTokens());
      }
    }
    requests.end(s.requestId(), outcome, delivered.promptTokens(), delivered.completionTokens());
  }

  private static NewCharge charge(
      MeteredCompletions.Started s, ApiKeyPrincipal key, int promptTokens, int completionTokens) {
    return new NewCharge(
        s.requestId(),
        key.organisationId(),
        key.keyId(),
        s.version().adapterId(),
        s.version().version(),
        promptTokens,
        completionTokens,
        s.startedAt(),
        s.routeReason());
  }
}
