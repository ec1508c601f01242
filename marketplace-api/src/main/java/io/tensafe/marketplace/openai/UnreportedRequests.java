package io.tensafe.marketplace.openai;

import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tensafe.marketplace.privacy.PrivacyBudgets;
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
 * Settles the DP reservations of requests whose node never reported. A request cut short (node
 * failed or killed, client gone, node timed out) keeps its whole reservation until its node's
 * report settles it; a killed node never reports. After {@code tensafe.gateway.report-deadline}
 * such a reservation is settled to the most the node can have released ({@link #bound}): the prompt
 * (the node's own count of it, or the reserved bound when the gateway saw none), the completion
 * tokens the gateway relayed, and {@code tensafe.gateway.node-run-ahead-tokens} more, the most a
 * node generates past what its reader took before it notices the reader is gone. A later report can
 * only lower it ({@link PrivacyBudgets#settleToBound}). Every replica sweeps; settlements are
 * idempotent by request id.
 */
@ApplicationScoped
public class UnreportedRequests {
  @Inject EntityManager em;
  @Inject PrivacyBudgets budgets;
  @Inject ServedVersions versions;

  @Inject GatewayConfig gateway;

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

  /**
   * The most a request's node can have released, in releases: (prompt tokens + relayed completion
   * tokens + run-ahead) × releases per token.
   *
   * @param deliveredPrompt the node's prompt count as relayed, 0 when none was relayed
   * @param maxPrompt the prompt-token bound reserved for
   */
  static long bound(
      long deliveredPrompt,
      long deliveredCompletion,
      long maxPrompt,
      int runAhead,
      int releasesPerToken) {
    long prompt = deliveredPrompt > 0 ? Math.min(deliveredPrompt, maxPrompt) : maxPrompt;
    return Math.multiplyExact(prompt + deliveredCompletion + runAhead, (long) releasesPerToken);
  }

  /** Settles every overdue unreported reservation (at most 500 a round); returns how many. */
  int sweep() {
    int settled = 0;
    for (Overdue r : QuarkusTransaction.requiringNew().call(this::overdue)) {
      if (r.maxPromptTokens() == null) {
        continue; // recorded before the gateway kept its limits: left to its report
      }
      long releases =
          bound(
              r.deliveredPromptTokens(),
              r.deliveredCompletionTokens(),
              r.maxPromptTokens(),
              gateway.nodeRunAheadTokens(),
              QuarkusTransaction.requiringNew()
                  .call(() -> versions.releasesPerToken(r.adapterRef(), r.version())));
      if (budgets.settleToBound(r.requestId().toString(), releases)) {
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
      long deliveredPromptTokens,
      long deliveredCompletionTokens,
      Long maxPromptTokens) {}

  private List<Overdue> overdue() {
    return Rows.list(
        em.createNativeQuery(
                """
            SELECT g.request_id, g.adapter_ref, g.adapter_version, g.delivered_prompt_tokens,
                   g.delivered_completion_tokens, g.max_prompt_tokens
            FROM gateway_request g JOIN dp_budget_event r
              ON r.request_id = g.request_id::text AND r.kind = 'reserve'
            WHERE g.ended_at < :before
              AND g.outcome IN ('node_failed', 'client_gone', 'node_timeout')
              AND NOT EXISTS (SELECT 1 FROM dp_budget_event e WHERE e.request_id = r.request_id
                              AND e.kind IN ('settle', 'refund', 'bound'))
            ORDER BY g.ended_at LIMIT 500
            """)
            .setParameter("before", OffsetDateTime.now().minus(gateway.reportDeadline())),
        Overdue.class);
  }
}
