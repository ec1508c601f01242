package io.tensafe.marketplace.privatemode;

import io.quarkus.logging.Log;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tensafe.marketplace.openai.GatewayConfig;
import io.tensafe.marketplace.openai.RequestOutcome;
import io.tensafe.marketplace.sql.Rows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Ends private sessions nobody ends: every 15 s, the sessions this instance relays that have been
 * idle past {@code tensafe.gateway.private-idle-timeout} (outcome {@code client_gone}), and any
 * private session in the database silent for twice that long, which no live instance relays (its
 * marketplace died): billed from the counts written at each step ({@code served_*_tokens}). Every
 * replica sweeps; a session is billed once (its end record is written once).
 */
@ApplicationScoped
public class SessionSweeper {
  @Inject PrivateSessions sessions;
  @Inject PrivateSettlement settlement;
  @Inject GatewayConfig gateway;
  @Inject EntityManager em;

  private ScheduledExecutorService thread;

  void start(@Observes StartupEvent event) {
    thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().name("private-sessions").daemon().unstarted(r));
    thread.scheduleWithFixedDelay(this::sweepLogged, 15, 15, TimeUnit.SECONDS);
  }

  void stop(@Observes ShutdownEvent event) {
    if (thread != null) {
      thread.shutdownNow();
    }
  }

  private void sweepLogged() {
    try {
      int ended = sessions.endIdle() + endOrphans();
      if (ended > 0) {
        Log.infof("ended %d idle private session(s), billed for what they were served", ended);
      }
    } catch (RuntimeException e) {
      Log.warnf("sweeping private sessions failed, will retry: %s", e.toString());
    }
  }

  /** Bills private sessions whose marketplace died; returns how many. */
  int endOrphans() {
    OffsetDateTime before =
        OffsetDateTime.now().minus(gateway.privateIdleTimeout().multipliedBy(2));
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
                ORDER BY active_at LIMIT 100
                """)
                            .setParameter("before", before),
                        PrivateSettlement.Served.class));
    for (PrivateSettlement.Served orphan : orphans) {
      settlement.settle(orphan, RequestOutcome.CLIENT_GONE);
    }
    return orphans.size();
  }
}
