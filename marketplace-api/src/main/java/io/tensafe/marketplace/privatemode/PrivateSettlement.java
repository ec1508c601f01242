package io.tensafe.marketplace.privatemode;

import io.tensafe.marketplace.billing.ChargeView;
import io.tensafe.marketplace.gateway.GatewayRequests;
import io.tensafe.marketplace.gateway.RequestOutcome;
import io.tensafe.marketplace.gateway.ServedVersions;
import io.tensafe.marketplace.gateway.Settlement;
import io.tensafe.marketplace.privacy.ReleaseCount;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Bills a private session from the marketplace's own count of the frames it relayed (never a
 * client's or a node's word), through the gateway's one settlement ({@link Settlement}): the prompt
 * is the prefill's tokens, the completion 1 + the decode steps served, both at the one private
 * price per 1k tokens (ADR 0024). The DP reservation is settled to the releases those tokens made:
 * one per noised site (the version's, which its node's plan was checked to match at open) and token
 * run ({@link ReleaseCount#implied}), each of ρ = 1/(2z²) as reserved; or refunded when no frame
 * was served. A second end of the same session bills nothing more.
 */
@ApplicationScoped
public class PrivateSettlement {
  @Inject Settlement settlement;
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
    if (s.promptTokens() == 0 && s.completionTokens() == 0) {
      settlement.endUnserved(id, outcome);
      return new SessionBill(0, 0, 0, null, -1);
    }
    GatewayRequests.Context c =
        GatewayRequests.Context.privateSession(
            s.organisationId(), s.apiKeyId(), s.adapterRef(), s.version(), s.startedAt());
    long releases =
        ReleaseCount.implied(
            s.promptTokens(),
            s.completionTokens(),
            versions.noisedSitesPerToken(s.adapterRef(), s.version()));
    Settlement.Settled settled =
        settlement.settle(
            id,
            c,
            outcome,
            Settlement.Counts.billed(s.promptTokens(), (int) s.completionTokens()),
            OptionalLong.of(releases));
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
