package io.tensafe.marketplace.gateway;

import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
import io.tensafe.marketplace.privacy.ReleaseCount;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Closes what no node report closed (ADR 0026). A request cut short (node failed or killed, client
 * gone, node timed out) keeps its whole reservation until its node's report settles it; a killed
 * node never reports. After {@code tensafe.gateway.report-deadline} such a reservation is settled
 * to the most the node can have released ({@code ReleaseCount.bound}): the prompt the marketplace
 * counted (or the reserved bound when it counted none), the completion tokens the gateway relayed,
 * and {@code tensafe.gateway.node-run-ahead-tokens} more, the most a node generates past what its
 * reader took before it notices the reader is gone. A later report can only lower it ({@link
 * PrivacyBudgets#settleToBound}). A hosted request that is still open although its gateway has not
 * vouched for it within the deadline lost its gateway: it is ended and billed at most what the
 * gateway recorded as relayed ({@link Settlement#settleLost}), lowered by its node's report if one
 * arrived. Every replica sweeps; settlements are idempotent by request id.
 */
@ApplicationScoped
public class UnreportedRequests {
  @Inject EntityManager em;
  @Inject PrivacyBudgets budgets;
  @Inject ServedVersions versions;

  @Inject GatewayConfig gateway;
  @Inject GatewayRequests requests;
  @Inject Settlement settlement;
  @Inject LiveRelays live;

  private ScheduledExecutorService thread;

  void start(@Observes StartupEvent event) {
    thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().name("unreported-requests").daemon().unstarted(r));
    thread.scheduleWithFixedDelay(
        this::sweepLogged,
        gateway.reportSweepPeriod().toMillis(),
        gateway.reportSweepPeriod().toMillis(),
        TimeUnit.MILLISECONDS);
  }

  void stop(@Observes ShutdownEvent event) {
    if (thread != null) {
      thread.shutdownNow();
    }
  }

  private void sweepLogged() {
    try {
      int settled = sweep();
      if (settled > 0) {
        Log.infof("settled %d unreported reservation(s) to their bound", settled);
      }
    } catch (RuntimeException e) {
      Log.warnf("sweeping unreported reservations failed, will retry: %s", e.toString());
    }
  }

  /** Settles every overdue reservation and ends every lost request (at most 500 each a round). */
  int sweep() {
    int settled = 0;
    OffsetDateTime before = OffsetDateTime.now().minus(gateway.reportDeadline());
    for (Overdue r : QuarkusTransaction.requiringNew().call(() -> overdue(before))) {
      if (r.maxPromptTokens() == null) {
        continue; // recorded before the gateway kept its limits: left to its report
      }
      long prompt = r.promptTokens() != null ? r.promptTokens() : r.maxPromptTokens();
      int perToken =
          QuarkusTransaction.requiringNew()
              .call(() -> versions.releasesPerToken(r.adapterRef(), r.version()));
      int runAhead = gateway.nodeRunAheadTokens();
      // A report that came while the gateway still owned the request settled nothing then: its
      // claim counts now, within what was relayed.
      long releases =
          r.claimedReleases() == null
              ? ReleaseCount.bound(prompt, r.relayedCompletionTokens(), runAhead, perToken)
              : ReleaseCount.settled(
                  r.claimedReleases(), prompt, r.relayedCompletionTokens(), runAhead, perToken);
      if (budgets.settleToBound(r.requestId().toString(), releases)) {
        settled++;
      }
    }
    // First vouch for this replica's own streams, however slow: they are not lost.
    QuarkusTransaction.requiringNew().run(() -> requests.vouch(live.ids()));
    for (Lost lost : QuarkusTransaction.requiringNew().call(() -> lost(before))) {
      String id = lost.requestId().toString();
      Settlement.NodeClaim claim =
          lost.claimed()
              ? new Settlement.NodeClaim(
                  lost.claimedPrompt(), lost.claimedCompletion(), lost.claimedReleases())
              : null;
      // Looked up again in the settling transaction: it may have ended or been vouched for since.
      boolean ended =
          QuarkusTransaction.requiringNew()
              .call(
                  () ->
                      requests
                          .find(id, before)
                          .filter(GatewayRequests.Dispatched::gatewayLost)
                          .map(
                              d -> {
                                settlement.settleLost(
                                    id,
                                    d,
                                    claim,
                                    versions.releasesPerToken(
                                        d.context().adapterRef(), d.context().version()));
                                return true;
                              })
                          .orElse(false));
      if (ended) {
        settled++;
      }
    }
    return settled;
  }

  /** A dispatched request whose node never reported, past the deadline. */
  private record Overdue(
      UUID requestId,
      String adapterRef,
      String version,
      long relayedCompletionTokens,
      Long maxPromptTokens,
      Integer promptTokens,
      Long claimedReleases) {}

  private List<Overdue> overdue(OffsetDateTime before) {
    return Rows.list(
        em.createNativeQuery(
                """
            SELECT g.request_id, g.adapter_ref, g.adapter_version,
                   coalesce(g.relayed_completion_tokens, g.delivered_completion_tokens),
                   g.max_prompt_tokens, g.prompt_tokens, u.dp_releases
            FROM gateway_request g JOIN dp_budget_event r
              ON r.request_id = g.request_id::text AND r.kind = 'reserve'
            LEFT JOIN usage_event u ON u.request_id = g.request_id AND u.node_id = g.node_id
            WHERE g.ended_at < :before
              AND g.outcome IN ('node_failed', 'client_gone', 'node_timeout')
              AND NOT EXISTS (SELECT 1 FROM dp_budget_event e WHERE e.request_id = r.request_id
                              AND e.kind IN ('settle', 'refund', 'bound'))
            ORDER BY g.ended_at LIMIT 500
            """)
            .setParameter("before", before),
        Overdue.class);
  }

  /** An open hosted request whose gateway stopped vouching for it, and its node's report if any. */
  private record Lost(
      UUID requestId,
      boolean claimed,
      int claimedPrompt,
      int claimedCompletion,
      long claimedReleases) {}

  private List<Lost> lost(OffsetDateTime before) {
    return Rows.list(
        em.createNativeQuery(
                """
            SELECT g.request_id, u.request_id IS NOT NULL, coalesce(u.prompt_tokens, 0),
                   coalesce(u.completion_tokens, 0), coalesce(u.dp_releases, 0)
            FROM gateway_request g
            LEFT JOIN usage_event u ON u.request_id = g.request_id AND u.node_id = g.node_id
            WHERE g.ended_at IS NULL AND g.mode = 'hosted'
              AND coalesce(g.active_at, g.started_at) < :before
            ORDER BY g.started_at LIMIT 500
            """)
            .setParameter("before", before),
        Lost.class);
  }
}
