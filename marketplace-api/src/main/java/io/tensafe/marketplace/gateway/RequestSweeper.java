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
 * The one sweep of each replica, for both modes, every {@code tensafe.gateway.sweep-period} (ADR
 * 0026, ADR 0039):
 *
 * <ol>
 *   <li>Liveness ({@link LiveRequests#sweep}): this replica's idle requests end themselves, the
 *       rest are vouched for in one statement, and those another replica ended are let go.
 *   <li>Overdue reservations: a request cut short (node failed or killed, client gone, node timed
 *       out) keeps its reservation until its node's report settles it; a killed node never reports.
 *       After {@code tensafe.gateway.report-deadline} it is settled to the most the node can have
 *       released ({@code ReleaseCount.bound}): the prompt the marketplace counted (or the reserved
 *       bound when it counted none), the completion tokens the gateway relayed, and {@code
 *       tensafe.gateway.node-run-ahead-tokens} more. A later report can only lower it ({@link
 *       PrivacyBudgets#settleToBound}).
 *   <li>Lost requests: one of either mode still open although no replica has vouched for it in
 *       {@code tensafe.gateway.lost-after} lost its replica. It ends as {@code gateway_lost},
 *       billed what that replica recorded: a hosted request at most what it recorded as relayed
 *       ({@link Settlement#settleLost}), lowered by its node's report if one arrived; a private
 *       session the counts written at each accepted frame ({@link Settlement#settleServed}).
 * </ol>
 *
 * Every replica sweeps; settlements are idempotent by request id, and a request is ended once.
 *
 * <p>Invariant: a request this replica serves is never taken for lost by this replica, and never by
 * another while this one sweeps at least once per {@code lost-after}.
 */
@ApplicationScoped
public class RequestSweeper {
  @Inject EntityManager em;
  @Inject PrivacyBudgets budgets;
  @Inject ServedVersions versions;

  @Inject GatewayConfig gateway;
  @Inject GatewayRequests requests;
  @Inject Settlement settlement;
  @Inject LiveRequests live;
  @Inject KeySlots slots;

  private ScheduledExecutorService thread;

  void start(@Observes StartupEvent event) {
    long period = Math.max(1, gateway.sweepPeriod().toMillis());
    if (2 * period >= gateway.lostAfter().toMillis()) {
      Log.warnf(
          "tensafe.gateway.sweep-period (%s) is not well under half of tensafe.gateway.lost-after"
              + " (%s): other replicas may take this one's live requests for lost",
          gateway.sweepPeriod(), gateway.lostAfter());
    }
    thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().name("request-sweeper").daemon().unstarted(r));
    thread.scheduleWithFixedDelay(this::sweepLogged, period, period, TimeUnit.MILLISECONDS);
  }

  void stop(@Observes ShutdownEvent event) {
    if (thread != null) {
      thread.shutdownNow();
    }
  }

  private void sweepLogged() {
    try {
      Swept s = sweep();
      if (s.idle() + s.endedElsewhere() + s.overdue() + s.lost() > 0) {
        Log.infof(
            "swept: %d idle request(s) ended, %d ended elsewhere let go, %d overdue reservation(s)"
                + " settled to their bound, %d lost request(s) ended",
            s.idle(), s.endedElsewhere(), s.overdue(), s.lost());
      }
    } catch (RuntimeException e) {
      Log.warnf("sweeping requests failed, will retry: %s", e.toString());
    }
  }

  /** What one sweep did. */
  public record Swept(int idle, int endedElsewhere, int overdue, int lost) {}

  /** One sweep, in the order above (at most 500 overdue and 500 lost a round). */
  public Swept sweep() {
    // First this replica's own requests, however slow: vouched for, they are not lost.
    LiveRequests.Swept own = live.sweep();
    slots.giveBackPending();
    int overdue = settleOverdue();
    int lost = endLost();
    return new Swept(own.idle(), own.endedElsewhere(), overdue, lost);
  }

  private int settleOverdue() {
    int settled = 0;
    OffsetDateTime before = OffsetDateTime.now().minus(gateway.reportDeadline());
    for (Overdue r : QuarkusTransaction.requiringNew().call(() -> overdue(before))) {
      if (r.maxPromptTokens() == null) {
        continue; // recorded before the gateway kept its limits: left to its report
      }
      try {
        settled += settleOverdue(r) ? 1 : 0;
      } catch (RuntimeException e) {
        Log.warnf("settling request %s to its bound failed, will retry: %s", r.requestId(), e);
      }
    }
    return settled;
  }

  /** Settles {@code r}'s reservation to its bound; false when it was settled already. */
  private boolean settleOverdue(Overdue r) {
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
    return budgets.settleToBound(r.requestId().toString(), releases);
  }

  private int endLost() {
    OffsetDateTime before = lostBefore();
    UUID[] servedHere = live.ids().toArray(UUID[]::new);
    int ended = 0;
    for (Lost lost : QuarkusTransaction.requiringNew().call(() -> lost(before, servedHere))) {
      // One at a time, each on its own: a request that cannot be ended does not hold up the rest.
      try {
        if (QuarkusTransaction.requiringNew()
            .call(() -> endIfStillLost(lost.requestId(), before))) {
          ended++;
        }
      } catch (RuntimeException e) {
        Log.warnf("ending lost request %s failed, will retry: %s", lost.requestId(), e.toString());
      }
    }
    return ended;
  }

  /** The time before which an open request no replica vouched for is lost. */
  public OffsetDateTime lostBefore() {
    return OffsetDateTime.now().minus(gateway.lostAfter());
  }

  /**
   * As the sweep ends a lost request, for a usage report that found request {@code id} lost: in the
   * report's transaction, from the row read again and locked (so a relayed count its gateway
   * committed since the report's read is billed, never overwritten), with the report's claim as
   * recorded.
   *
   * @return whether this call ended it
   */
  public boolean endIfStillLost(String id) {
    return endIfStillLost(UUID.fromString(id), lostBefore());
  }

  /**
   * Ends request {@code id} as lost if it still is, in the caller's transaction: its row is read
   * again and locked first, so a replica that vouched for it or recorded more (a private frame's
   * served counts, a relayed count) since the sweep's query either did so before (and it is not
   * lost, or it is billed what was recorded) or waits for this end (and finds it ended).
   */
  private boolean endIfStillLost(UUID id, OffsetDateTime before) {
    java.util.Optional<Lost> still =
        Rows.first(
            em.createNativeQuery(LOST + " AND g.request_id = :id FOR UPDATE OF g")
                .setParameter("before", before)
                .setParameter("here", new UUID[0])
                .setParameter("id", id),
            Lost.class);
    if (still.isEmpty()) {
      return false;
    }
    Lost lost = still.get();
    if (RequestMode.of(lost.mode()) == RequestMode.PRIVATE) {
      return settlement
          .settleServed(
              new Settlement.Served(
                  lost.requestId(),
                  lost.organisationId(),
                  lost.apiKeyId(),
                  lost.adapterRef(),
                  lost.version(),
                  lost.startedAt(),
                  lost.servedPrompt(),
                  lost.servedCompletion()),
              RequestOutcome.GATEWAY_LOST)
          .ended();
    }
    Settlement.NodeClaim claim =
        lost.claimed()
            ? new Settlement.NodeClaim(
                lost.claimedPrompt(), lost.claimedCompletion(), lost.claimedReleases())
            : null;
    return requests
        .find(id.toString(), before)
        .filter(GatewayRequests.Dispatched::gatewayLost)
        .map(
            d -> {
              settlement.settleLost(
                  id.toString(),
                  d,
                  claim,
                  versions.releasesPerToken(d.context().adapterRef(), d.context().version()));
              return true;
            })
        .orElse(false);
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

  /**
   * An open request, of either mode, that no replica vouched for since the deadline: its payer and
   * version, a private session's served counts, and a hosted request's node report if any.
   */
  private record Lost(
      UUID requestId,
      String mode,
      UUID organisationId,
      UUID apiKeyId,
      String adapterRef,
      String version,
      OffsetDateTime startedAt,
      int servedPrompt,
      long servedCompletion,
      boolean claimed,
      int claimedPrompt,
      int claimedCompletion,
      long claimedReleases) {}

  /**
   * Open requests of either mode that no replica vouched for since {@code :before}, but those
   * served here ({@code :here}), with a private session's served counts and a hosted request's node
   * report if any.
   */
  private static final String LOST =
      """
      SELECT g.request_id, g.mode, g.client_organisation_id, g.api_key_id, g.adapter_ref,
             g.adapter_version, g.started_at, coalesce(g.served_prompt_tokens, 0),
             coalesce(g.served_completion_tokens, 0), u.request_id IS NOT NULL,
             coalesce(u.prompt_tokens, 0), coalesce(u.completion_tokens, 0),
             coalesce(u.dp_releases, 0)
      FROM gateway_request g
      LEFT JOIN usage_event u ON u.request_id = g.request_id AND u.node_id = g.node_id
      WHERE g.ended_at IS NULL AND coalesce(g.active_at, g.started_at) < :before
        AND NOT (g.request_id = ANY (:here))
      """;

  private List<Lost> lost(OffsetDateTime before, UUID[] servedHere) {
    return Rows.list(
        em.createNativeQuery(LOST + " ORDER BY g.started_at LIMIT 500")
            .setParameter("before", before)
            .setParameter("here", servedHere),
        Lost.class);
  }
}
