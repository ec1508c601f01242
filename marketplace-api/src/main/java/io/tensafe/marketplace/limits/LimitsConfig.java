package io.tensafe.marketplace.limits;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Where per-key and per-node limits are counted ({@code tensafe.limits.*}). */
@ConfigMapping(prefix = "tensafe.limits")
public interface LimitsConfig {
  /** Where the limits hold. */
  enum Scope {
    /** In PostgreSQL, for every replica together (the default). */
    SHARED,
    /** In each process alone: one replica's view, kept to measure what sharing costs. */
    INSTANCE
  }

  @WithDefault("shared")
  Scope scope();

  /**
   * How long a shared lease lives unless its replica renews it (every third of this): what a
   * replica that dies without giving its leases back holds them for at most.
   */
  @WithDefault("PT10S")
  Duration leaseTtl();

  /**
   * Requests one organisation may start per minute, all its keys together (≥ 1), shared across
   * replicas (ADR 0038). Enforced in the shared scope; the instance scope counts keys only.
   */
  @WithDefault("6000")
  int organisationRequestsPerMinute();

  /** Requests one organisation may have in flight, all its keys together (≥ 1), as above. */
  @WithDefault("256")
  int organisationMaxInFlight();
}
