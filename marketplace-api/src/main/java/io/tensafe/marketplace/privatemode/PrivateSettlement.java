package io.tensafe.marketplace.privatemode;

import io.tensafe.marketplace.billing.ChargeLedger;
import io.tensafe.marketplace.billing.ChargeView;
import io.tensafe.marketplace.billing.NewCharge;
import io.tensafe.marketplace.openai.GatewayRequests;
import io.tensafe.marketplace.openai.RequestOutcome;
import io.tensafe.marketplace.openai.ServedVersions;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.privacy.ReleaseCount;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * Bills a private session once, in one transaction with its end record, from the marketplace's own
 * count of the frames it relayed (never a client's or a node's word): the prompt is the prefill's
 * tokens, the completion 1 + the decode steps served, both at the one private price per 1k tokens
 * (ADR 0024). The DP reservation is settled to the releases those tokens made: one per noised site
 * (the version's, which its node's plan was checked to match at open) and token run ({@link
 * ReleaseCount}), each of ρ = 1/(2z²) as reserved; or refunded when nothing was served. A second
 * end of the same session bills nothing more (the request's end record and the charge are each
 * written once).
 */
@ApplicationScoped
public class PrivateSettlement {
  @Inject ChargeLedger charges;
  @Inject PrivacyBudgets budgets;
  @Inject GatewayRequests requests;
  @Inject ServedVersions versions;

  /** What to bill: one session's payer, version and served counts. */
  record Served(
      UUID requestId,
      UUID organisationId,
      UUID apiKeyId,
      String adapterRef,
      String version,
      OffsetDateTime startedAt,
      int promptTokens,
      long completionTokens) {}

  @Transactional
  public SessionBill settle(Served s, RequestOutcome outcome) {
    String id = s.requestId().toString();
    if (s.completionTokens() == 0) {
      budgets.refund(id);
      requests.end(id, outcome, 0, 0);
      return new SessionBill(0, 0, 0, null, -1);
    }
    if (!requests.end(id, outcome, s.promptTokens(), (int) s.completionTokens())) {
      return new SessionBill(s.promptTokens(), s.completionTokens(), 0, null, -1);
    }
    ChargeView charge =
        charges.recordUnlessBilled(
            new NewCharge(
                id,
                s.organisationId(),
                s.apiKeyId(),
                s.adapterRef(),
                s.version(),
                s.promptTokens(),
                s.completionTokens(),
                s.startedAt(),
                null));
    long releases =
        ReleaseCount.settled(
            0,
            s.promptTokens(),
            s.completionTokens(),
            versions.noisedSitesPerToken(s.adapterRef(), s.version()));
    double epsilon = budgets.settleReported(id, releases).orElse(-1);
    return new SessionBill(
        s.promptTokens(), s.completionTokens(), charge.amountMicros(), charge.currency(), epsilon);
  }
}
