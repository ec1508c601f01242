package io.tensafe.marketplace.openai;

import io.quarkus.logging.Log;
import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.billing.ChargeLedger;
import io.tensafe.marketplace.billing.ChargeView;
import io.tensafe.marketplace.billing.NewCharge;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.Optional;

/**
 * Bills a dispatched request when the gateway ends it, in one transaction with its DP settlement
 * and its end record ({@code gateway_request.outcome}):
 *
 * <ul>
 *   <li>completed: the node's final counts are charged and the budget settled to them;
 *   <li>cut short (the client left, the node failed): the text the client was sent is charged, in
 *       the node's counts for it ({@link Delivered}), and the budget settled to the same count;
 *       tokens the node made but the client never saw cost nothing, in money or ε. With nothing
 *       sent, nothing is charged and the reservation is refunded.
 * </ul>
 *
 * A node report for a request ended here is recorded but bills nothing ({@code UsageEvents}); one
 * that got in first (a race only at the very end of a stream) stands, and this logs the difference.
 * Either way each request is billed once.
 */
@ApplicationScoped
public class RequestSettlement {
  @Inject ChargeLedger charges;
  @Inject PrivacyBudgets budgets;
  @Inject GatewayRequests requests;

  @Transactional
  public ChargeView completed(
      MeteredCompletions.Started s, ApiKeyPrincipal key, int promptTokens, int completionTokens) {
    ChargeView charge = charges.record(charge(s, key, promptTokens, completionTokens));
    budgets.settle(s.requestId(), Math.min(completionTokens, s.reservation().tokens()));
    requests.end(s.requestId(), RequestOutcome.COMPLETED, promptTokens, completionTokens);
    return charge;
  }

  /** Bills what {@code delivered} says the client got; returns the charge, if any. */
  @Transactional
  public Optional<ChargeView> endedEarly(
      MeteredCompletions.Started s,
      ApiKeyPrincipal key,
      RequestOutcome outcome,
      Delivered delivered) {
    Optional<ChargeView> charge;
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
      budgets.settle(
          s.requestId(), Math.min(delivered.completionTokens(), s.reservation().tokens()));
      charge = Optional.of(c);
    } else {
      charge = charges.find(s.requestId());
      if (charge.isEmpty()) {
        budgets.refund(s.requestId());
      }
    }
    requests.end(s.requestId(), outcome, delivered.promptTokens(), delivered.completionTokens());
    return charge;
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
