package io.tensafe.marketplace.privatemode;

import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tensafe.marketplace.gateway.RequestOutcome;
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
 * Keeps private sessions' liveness and ends those nobody ends, every {@code
 * tensafe.gateway.private-sweep-period} (15 s): first it marks the sessions this replica relays as
 * live ({@code active_at}) and drops those another replica ended; then it ends its own sessions
 * without an accepted frame for {@code tensafe.gateway.private-idle-timeout} (outcome {@code
 * client_gone}); then any private session in the database that no replica has vouched for in twice
 * that long (its marketplace died), billed from the counts written at each accepted frame ({@code
 * served_*_tokens}). Every replica sweeps; a session is billed once (its end record is written
 * once).
 *
 * <p>Invariant: a session in this replica's live map is never taken for an orphan by this replica,
 * and never by another while this one sweeps at least once per twice the idle timeout.
 */
@ApplicationScoped
public class SessionSweeper {
  @Inject PrivateSessions sessions;
  @Inject PrivateSettlement settlement;
  @Inject PrivateModeConfig privateMode;
  @Inject EntityManager em;

  private ScheduledExecutorService thread;

  void start(@Observes StartupEvent event) {
    long period = Math.max(1, privateMode.privateSweepPeriod().toMillis());
    if (period >= privateMode.privateIdleTimeout().toMillis()) {
      Log.warnf(
          "tensafe.gateway.private-sweep-period (%s) is not shorter than the private idle timeout"
              + " (%s): other replicas may take this one's live sessions for orphans",
          privateMode.privateSweepPeriod(), privateMode.privateIdleTimeout());
    }
    thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().name("private-sessions").daemon().unstarted(r));
    thread.scheduleWithFixedDelay(this::sweepLogged, period, period, TimeUnit.MILLISECONDS);
  }

  void stop(@Observes ShutdownEvent event) {
    if (thread != null) {
      thread.shutdownNow();
    }
  }

  private void sweepLogged() {
    try {
      int ended = sweep();
      if (ended > 0) {
        Log.infof("ended %d idle private session(s), billed for what they were served", ended);
      }
    } catch (RuntimeException e) {
      Log.warnf("sweeping private sessions failed, will retry: %s", e.toString());
    }
  }

  /**
   * One sweep: refreshes this replica's sessions, ends its idle ones, then other replicas' orphans;
   * returns how many it ended.
   */
  int sweep() {
    sessions.refreshLive();
    return sessions.endIdle() + endOrphans();
  }

  /** Bills private sessions whose marketplace died; returns how many. */
  int endOrphans() {
    OffsetDateTime before =
        OffsetDateTime.now().minus(privateMode.privateIdleTimeout().multipliedBy(2));
    UUID[] relayedHere = sessions.liveIds().toArray(UUID[]::new);
    List<PrivateSettlement.Served> orphans =
        QuarkusTransaction.requiringNew()
            .call(
                () ->
                    Rows.list(
                        em.createNativeQuery(
                                """
                SELECT request_id, client_organisation_id, api_key_id, adapter_ref,
                       adapter_version, started_at, coalesce(served_prompt_tokens, 0),
                       coalesce(served_completion_tokens, 0)
                FROM gateway_request
                WHERE mode = 'private' AND ended_at IS NULL AND active_at < :before
                  AND NOT (request_id = ANY (:here))
                ORDER BY active_at LIMIT 100
                """)
                            .setParameter("before", before)
                            .setParameter("here", relayedHere),
                        PrivateSettlement.Served.class));
    for (PrivateSettlement.Served orphan : orphans) {
      settlement.settle(orphan, RequestOutcome.CLIENT_GONE);
    }
    return orphans.size();
  }
}
