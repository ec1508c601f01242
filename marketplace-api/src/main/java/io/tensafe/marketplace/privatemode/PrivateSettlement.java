package io.tensafe.marketplace.privatemode;

import io.tensafe.marketplace.billing.ChargeView;
import io.tensafe.marketplace.gateway.RequestOutcome;
import io.tensafe.marketplace.gateway.Settlement;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Bills a private session through the gateway's one settlement ({@link Settlement#settleServed}):
 * from the marketplace's own count of the frames it relayed (never a client's or a node's word),
 * the prompt the prefill's tokens, the completion 1 + the decode steps served, both at the one
 * private price per 1k tokens (ADR 0024), and answers the client with its {@link SessionBill}.
 */
@ApplicationScoped
public class PrivateSettlement {
  @Inject Settlement settlement;

  public SessionBill settle(Settlement.Served s, RequestOutcome outcome) {
    Settlement.Settled settled = settlement.settleServed(s, outcome);
    ChargeView charge = settled.charge();
    return charge == null
        ? new SessionBill(s.promptTokens(), s.completionTokens(), 0, null, -1)
        : new SessionBill(
            s.promptTokens(),
            s.completionTokens(),
            charge.amountMicros(),
            charge.currency(),
            settled.epsilonSpent());
  }
}
