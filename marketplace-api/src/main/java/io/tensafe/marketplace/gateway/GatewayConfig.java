package io.tensafe.marketplace.gateway;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/**
 * The metered gateway's settings ({@code tensafe.gateway.*}), declared once with their defaults;
 * all but a key's requests per minute, which {@link io.tensafe.marketplace.limits.KeyRateConfig}
 * declares beside the limits that read it.
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

  /** Largest request body to /v1 in bytes (4 MiB). */
  @WithDefault("4194304")
  long maxBodyBytes();

  /** Requests one API key may have in flight at once (≥ 1). */
  @WithDefault("16")
  int maxConcurrencyPerKey();

  /** Tokens a node may compute past the last one relayed, counted against its DP bound. */
  @WithDefault("64")
  int nodeRunAheadTokens();

  /** How long after a request ends its node's usage report may still arrive. */
  @WithDefault("PT10M")
  Duration reportDeadline();

  /** How often overdue reports are settled to their bound. */
  @WithDefault("PT1M")
  Duration reportSweepPeriod();

  /** Largest private-session frame in bytes, either way (64 MiB). */
  @WithDefault("67108864")
  long maxFrameBytes();

  /**
   * A private session without an accepted frame for this long is ended and billed for what it was
   * served; one whose replica stopped vouching for it for twice this long is ended by any replica.
   */
  @WithDefault("PT2M")
  Duration privateIdleTimeout();

  /**
   * How long a private-session frame may take at the relay, from its body's start to the node's
   * answer: a client whose body has not all arrived by then is dropped, without blaming the node; a
   * node that had the whole frame and did not answer by then failed.
   */
  @WithDefault("PT2M")
  Duration privateFrameTimeout();

  /**
   * How often each replica refreshes the rows of the private sessions it relays, ends its idle ones
   * and ends other replicas' orphans: keep it well under twice {@link #privateIdleTimeout()}, or
   * other replicas may take a live session for an orphan.
   */
  @WithDefault("PT15S")
  Duration privateSweepPeriod();

  /**
   * Private-session frames that cost one request of the key's requests per minute ({@link
   * io.tensafe.marketplace.limits.KeyRateConfig#requestsPerMinutePerKey()}): a session draws one
   * request from the key's allowance at its first frame and at every this-many frames after it (≥
   * 1).
   */
  @WithDefault("128")
  int framesPerRequest();

  /**
   * Bytes of private-session frames this replica holds or relays at once, all sessions together:
   * the frames' declared lengths from admission until their answers are handed back, plus the
   * answers. A frame that would pass it is refused with 503 before its body is read, unless no
   * other frame is in flight (256 MiB).
   */
  @WithDefault("268435456")
  long maxFrameBytesInFlight();
}
