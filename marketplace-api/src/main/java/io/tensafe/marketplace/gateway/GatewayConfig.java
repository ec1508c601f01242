package io.tensafe.marketplace.gateway;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/**
 * The metered gateway's settings ({@code tensafe.gateway.*}), declared once with their defaults;
 * all but a key's requests per minute, which {@link io.tensafe.marketplace.limits.KeyRateConfig}
 * declares beside the limits that read it, and private mode's, which {@code
 * privatemode.PrivateModeConfig} declares beside the frames and sessions that read them.
 */
@ConfigMapping(prefix = "tensafe.gateway")
public interface GatewayConfig {
  /**
   * This replica's name, under which it records the hosted requests it relays; unset: the host's
   * name and the HTTP port. A replica that starts again under the same name takes the requests it
   * had open for lost at once (ADR 0026), so two live replicas must never share one.
   */
  Optional<String> replica();

  /** The adapter {@code auto} falls back to when no keyword matches; none refuses with 422. */
  Optional<String> defaultAdapter();

  /** How long a node may take to send its first token before the gateway fails over. */
  @WithDefault("PT30S")
  Duration firstByteTimeout();

  /**
   * How long a node that answered may go without sending an event (a piece of text, or its end)
   * before the gateway closes its stream and ends the request as the node's failure (ADR 0038).
   * Covers the prompt's prefill, which comes before the first piece.
   */
  @WithDefault("PT2M")
  Duration nodeIdleTimeout();

  /**
   * How long a request waits for a node slot when every node of its model is at its ceiling,
   * retrying its admission meanwhile, before it is refused with 429 and Retry-After (ADR 0038).
   * Zero refuses at once.
   */
  @WithDefault("PT30S")
  Duration slotWait();

  /**
   * Requests that may wait for a node slot on this replica at once (≥ 0); one beyond it is refused
   * with 429 at once, so waiters cannot take every worker thread (ADR 0038).
   */
  @WithDefault("64")
  int maxWaiting();

  /** Largest request body to /v1 in bytes (4 MiB). */
  @WithDefault("4194304")
  long maxBodyBytes();

  /** Requests one API key may have in flight at once (≥ 1). */
  @WithDefault("16")
  int maxConcurrencyPerKey();

  /** Tokens a node may compute past the last one relayed, counted against its DP bound. */
  @WithDefault("64")
  int nodeRunAheadTokens();

  /**
   * How long after a request ends its node's usage report may still arrive: after it the
   * reservation is settled to its bound.
   */
  @WithDefault("PT10M")
  Duration reportDeadline();

  /**
   * How often each replica's one sweep ({@link RequestSweeper}) runs, for both modes: it ends its
   * idle requests, vouches for the rest, settles overdue reservations and ends lost requests. Keep
   * it well under half of {@link #lostAfter()}, or other replicas may take a live request for lost.
   */
  @WithDefault("PT15S")
  Duration sweepPeriod();

  /**
   * How long an open request of either mode may go without its replica vouching for it before any
   * replica ends it as {@code gateway_lost} (its replica died), billed what that replica recorded.
   */
  @WithDefault("PT4M")
  Duration lostAfter();

  /** Largest private-session frame in bytes, either way (64 MiB). */
  @WithDefault("67108864")
  long maxFrameBytes();
}
