package io.tensafe.marketplace.gateway;

import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tensafe.marketplace.billing.BillingConfig;
import io.tensafe.marketplace.billing.ChargeView;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.privacy.ReleaseCount;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemTypes;
import io.tensafe.marketplace.sql.OneStatement;
import io.tensafe.marketplace.sql.SqlRefusal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The one place a request is billed and its DP reservation closed, hosted and private alike (ADR
 * 0026). A bill is always the marketplace's own count of what it relayed — the prompt it counted or
 * the frames it relayed, the completion text it passed on counted with the model's tokenizer —
 * never a node's or a client's word. Each request is ended once ({@code gateway_request.ended_at})
 * and charged at most once (by request id): a second end bills nothing.
 */
@ApplicationScoped
public class Settlement {
  @Inject OneStatement statement;
  @Inject BillingConfig billing;
  @Inject PrivacyBudgets budgets;
  @Inject GatewayRequests requests;
  @Inject GatewayConfig gateway;
  @Inject ServedVersions versions;

  /**
   * What a request was billed: its charge (null when nothing was billed), its budget's ε spent once
   * it was settled (-1 when its reservation was left for a node's report or was already closed),
   * and whether this call ended it (false: it had ended already, and nothing more was done).
   */
  public record Settled(ChargeView charge, double epsilonSpent, boolean ended) {}

  /**
   * What a request is billed, and what its node was seen to make.
   *
   * @param promptTokens billed, ≥ 0
   * @param completionTokens billed: the completion its client received, as the marketplace counts
   *     it, ≥ 0
   * @param readCompletionTokens the completion tokens the gateway read from the node, ≥ {@code
   *     completionTokens} (a piece read but not passed on, an answer cut short before it was sent):
   *     what the node's DP bound counts
   * @param nodeCompletionClaim the completion tokens the node claimed, kept beside the bill as a
   *     cross-check (shown per node to admins); -1 when it claimed none
   */
  public record Counts(
      int promptTokens, int completionTokens, int readCompletionTokens, int nodeCompletionClaim) {
    /** Counts billed as read, with no claim. */
    public static Counts billed(int promptTokens, int completionTokens) {
      return new Counts(promptTokens, completionTokens, completionTokens, -1);
    }
  }

  /**
   * Ends {@code requestId} as {@code outcome}, bills {@code counts} (nothing when both billed
   * counts are 0), and settles its reservation to {@code releases} (empty: left open for the node's
   * report, or the sweep, to settle). Nothing happens when the request has ended already.
   *
   * @param releases DP releases made, already within the rule of {@code privacy.ReleaseCount}
   */
  public Settled settle(
      String requestId,
      GatewayRequests.Context c,
      RequestOutcome outcome,
      Counts counts,
      OptionalLong releases) {
    return settle(requestId, c, outcome, counts, releases, List.of());
  }

  /**
   * As {@link #settle(String, GatewayRequests.Context, RequestOutcome, Counts, OptionalLong)}, and
   * gives back the limit leases {@code leases} (the request's node and key slots, when counted in
   * the database) in the same call: one call of {@code end_request} ({@code
   * R__request_settlement.sql}), in the caller's transaction, else alone in one round trip (ADR
   * 0040). The leases are given back even when the request had ended already.
   */
  public Settled settle(
      String requestId,
      GatewayRequests.Context c,
      RequestOutcome outcome,
      Counts counts,
      OptionalLong releases,
      List<UUID> leases) {
    Ended e;
    try {
      e =
          statement.single(
              END_REQUEST,
              Ended.class,
              UUID.fromString(requestId),
              outcome.column(),
              counts.promptTokens(),
              counts.completionTokens(),
              counts.readCompletionTokens(),
              counts.nodeCompletionClaim(),
              releases.isPresent() ? releases.getAsLong() : null,
              leases.toArray(UUID[]::new),
              UUID.randomUUID(),
              c.clientOrganisationId(),
              c.apiKeyId(),
              c.adapterRef(),
              c.version(),
              c.startedAt(),
              c.routeReason(),
              billing.platformTakeBasisPoints());
    } catch (PersistenceException refused) {
      throw SqlRefusal.words(refused, "P0002")
          .map(w -> ProblemTypes.notFound("adapter version " + c.adapterRef() + "@" + c.version()))
          .or(() -> SqlRefusal.words(refused, "22023").map(ProblemTypes::validation))
          .orElseThrow(() -> refused);
    }
    if (!e.ended()) {
      Log.infof("request %s had ended already; nothing more is billed", requestId);
    }
    double epsilon =
        e.budget() == null ? -1 : e.budget().epsilon(requestId, releases.orElse(0)).orElse(-1);
    return new Settled(e.charge(), e.ended() ? epsilon : -1, e.ended());
  }

  private static final String END_REQUEST =
      "SELECT * FROM end_request(CAST(? AS uuid), CAST(? AS text), CAST(? AS integer),"
          + " CAST(? AS integer), CAST(? AS integer), CAST(? AS integer), CAST(? AS bigint),"
          + " CAST(? AS uuid[]), CAST(? AS uuid), CAST(? AS uuid), CAST(? AS uuid),"
          + " CAST(? AS text), CAST(? AS text), CAST(? AS timestamptz), CAST(? AS text),"
          + " CAST(? AS integer))";

  /**
   * A row of {@code end_request}: whether it ended the request, the request's charge (null when it
   * was not billed; {@code chargeStatus} is {@code record_charge}'s) and its reservation's
   * settlement (null when none was settled).
   */
  private record Ended(
      boolean ended, String chargeStatus, ChargeView charge, PrivacyBudgets.Closed budget) {}

  /**
   * As {@link #settle}, except that the reservation is settled to {@code bound} (a {@code bound}
   * event, which the node's report can only lower) when one is given, else left open.
   */
  @Transactional
  public Settled settleAtBound(
      String requestId,
      GatewayRequests.Context c,
      RequestOutcome outcome,
      Counts counts,
      OptionalLong bound) {
    Settled s = settle(requestId, c, outcome, counts, OptionalLong.empty());
    if (s.ended() && bound.isPresent()) {
      budgets.settleToBound(requestId, bound.getAsLong());
    }
    return s;
  }

  /**
   * What a private session was served, as the marketplace counted the frames it relayed: who pays,
   * which version, the prefill's tokens ({@code promptTokens} ≥ 0) and 1 + the decode steps served
   * ({@code completionTokens} ≥ 0; 0 when no frame was served).
   */
  public record Served(
      UUID requestId,
      UUID organisationId,
      UUID apiKeyId,
      String adapterRef,
      String version,
      OffsetDateTime startedAt,
      int promptTokens,
      long completionTokens) {}

  /**
   * Ends a private session billed from what it was served (ADR 0024), by the replica that relayed
   * it or, when that replica died, by any replica's sweep ({@link RequestSweeper}) from the counts
   * written at each accepted frame. The reservation is settled to the releases those tokens made:
   * one per noised site (the version's, which its node's plan was checked to match at open) and
   * token run ({@link ReleaseCount#implied}); refunded when no frame was served. A second end bills
   * nothing more.
   */
  @Transactional
  public Settled settleServed(Served s, RequestOutcome outcome) {
    String id = s.requestId().toString();
    if (s.promptTokens() == 0 && s.completionTokens() == 0) {
      return new Settled(null, -1, endUnserved(id, outcome));
    }
    GatewayRequests.Context c =
        GatewayRequests.Context.privateSession(
            s.organisationId(), s.apiKeyId(), s.adapterRef(), s.version(), s.startedAt());
    long releases =
        ReleaseCount.implied(
            s.promptTokens(),
            s.completionTokens(),
            versions.noisedSitesPerToken(s.adapterRef(), s.version()));
    return settle(
        id,
        c,
        outcome,
        Counts.billed(s.promptTokens(), (int) s.completionTokens()),
        OptionalLong.of(releases));
  }

  /**
   * Ends a request that no node served, with nothing billed; its reservation comes back whole (no
   * node received the client's inputs).
   *
   * @return false when it had ended already (nothing done)
   */
  @Transactional
  public boolean endUnserved(String requestId, RequestOutcome outcome) {
    if (!requests.end(requestId, outcome, 0, 0)) {
      return false;
    }
    budgets.refund(requestId);
    return true;
  }

  /**
   * Ends a request that no node served, with nothing billed, after a node that received its inputs
   * failed or refused: its reservation is settled to that node's bound ({@code releases}).
   */
  @Transactional
  public void endUnservedAtBound(String requestId, long releases, RequestOutcome outcome) {
    if (requests.end(requestId, outcome, 0, 0)) {
      budgets.settleToBound(requestId, releases);
    }
  }

  /**
   * Ends a request with nothing billed, its reservation left open for its node's report or the
   * sweep ({@link RequestSweeper}).
   */
  @Transactional
  public void endUnbilled(String requestId, RequestOutcome outcome) {
    requests.end(requestId, outcome, 0, 0);
  }

  /**
   * Spends {@code releases} of the request's budget for a node that received it and failed before
   * answering, as a reservation of its own ({@code attemptId}) settled at once: the request's own
   * reservation stays whole for the node tried next.
   *
   * @return false when the budget cannot cover it (nothing was spent)
   */
  public boolean spendFailedAttempt(
      String attemptId, GatewayRequests.Context c, RequestMode mode, long releases) {
    try {
      QuarkusTransaction.requiringNew()
          .run(
              () -> {
                budgets.reserve(
                    c.clientOrganisationId(),
                    c.adapterRef(),
                    c.version(),
                    attemptId,
                    releases,
                    Instant.now());
                budgets.settleToBound(attemptId, releases);
              });
      return true;
    } catch (ApiProblem e) {
      if (e.status() == 429) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Settles the reservation of a request its gateway ended before the node's final event (the
   * client left, the node failed or timed out) to the node's reported releases within what was
   * relayed ({@code ReleaseCount.settled}); a report for a reservation settled to its bound can
   * only lower it. Bills nothing: the gateway billed what it relayed.
   *
   * @return the budget's ε spent after it, if this settled it
   */
  @Transactional
  public java.util.OptionalDouble settleReported(
      String requestId, GatewayRequests.Dispatched d, long claimedReleases, int releasesPerToken) {
    long releases =
        ReleaseCount.settled(
            claimedReleases,
            promptRun(d),
            d.relayedCompletionTokens(),
            gateway.nodeRunAheadTokens(),
            releasesPerToken);
    return budgets.settleReported(requestId, releases);
  }

  /**
   * Ends a hosted request whose gateway died before ending it ({@link
   * GatewayRequests.Dispatched#gatewayLost}), as {@link RequestOutcome#GATEWAY_LOST}: billed the
   * counted prompt when the gateway recorded that its client was sent text (a relayed count: the
   * node's report alone does not make it billable) and the completion tokens its gateway recorded
   * as relayed — the marketplace's count, whatever the node claims. The reservation is settled
   * within them: to the node's claim when it reported, else to their bound, which a later report
   * can only lower. Nothing happens when the request has ended meanwhile.
   *
   * @param claim the node's report, or null
   */
  @Transactional
  public void settleLost(
      String requestId, GatewayRequests.Dispatched d, NodeClaim claim, int releasesPerToken) {
    int relayed = d.relayedCompletionTokens();
    long prompt = promptRun(d);
    // The marketplace's record only: a node's report does not make the prompt billable (ADR 0038).
    int billedPrompt = d.relayedAny() ? (int) prompt : 0;
    int runAhead = gateway.nodeRunAheadTokens();
    Log.warnf(
        "request %s: its gateway died before ending it; billing %d + %d tokens (node claimed %s)",
        requestId,
        billedPrompt,
        relayed,
        claim == null ? "nothing" : claim.promptTokens() + " + " + claim.completionTokens());
    Counts counts =
        new Counts(billedPrompt, relayed, relayed, claim == null ? -1 : claim.completionTokens());
    if (claim != null) {
      settle(
          requestId,
          d.context(),
          RequestOutcome.GATEWAY_LOST,
          counts,
          OptionalLong.of(
              ReleaseCount.settled(claim.releases(), prompt, relayed, runAhead, releasesPerToken)));
    } else if (settle(
            requestId, d.context(), RequestOutcome.GATEWAY_LOST, counts, OptionalLong.empty())
        .ended()) {
      budgets.settleToBound(
          requestId, ReleaseCount.bound(prompt, relayed, runAhead, releasesPerToken));
    }
  }

  /**
   * A node's own account of a request, from its usage report: never billed; its releases are
   * settled within what was relayed, and its completion count is kept as the cross-check.
   */
  public record NodeClaim(int promptTokens, int completionTokens, long releases) {}

  /** The prompt tokens the node ran: the marketplace's count, else the bound reserved for. */
  private static long promptRun(GatewayRequests.Dispatched d) {
    GatewayRequests.Limits l = d.context().limits();
    return l.promptTokens() >= 0
        ? l.promptTokens()
        : Math.min(l.maxPromptTokens(), Integer.MAX_VALUE);
  }
}
