package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.limits.Limits;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.UUID;

/**
 * An API key's request slots, hosted requests and private sessions alike: its rate per minute and
 * its requests in flight, counted for every replica together unless {@code tensafe.limits.scope}
 * says otherwise. Every slot taken is given back once, by whoever ends the request.
 */
@ApplicationScoped
public class KeySlots {
  @Inject GatewayConfig gateway;
  @Inject Limits limits;

  /**
   * Takes one of {@code key}'s slots.
   *
   * @return the slot's lease, for {@link #give}
   * @throws ApiProblem 429 with Retry-After when the key has started {@code
   *     tensafe.gateway.requests-per-minute-per-key} requests in the last minute, or already has
   *     {@code tensafe.gateway.max-concurrency-per-key} in flight
   */
  public UUID take(ApiKeyPrincipal key) {
    var admission = limits.admitKey(key.keyId(), gateway.maxConcurrencyPerKey());
    if (admission.lease() != null) {
      return admission.lease();
    }
    throw new ApiProblem(
        ProblemKind.RATE_LIMITED,
        admission.rateLimited()
            ? "this API key may start " + limits.requestsPerMinute() + " requests per minute"
            : "this API key already has " + gateway.maxConcurrencyPerKey() + " requests in flight",
        admission.retryAfterSeconds());
  }

  /** Gives back a slot {@link #take} took. */
  public void give(UUID lease) {
    limits.slots().give(lease);
  }

  /** Gives back leases (a node's and a key's slot) with the current transaction's commit. */
  void giveWithTransaction(java.util.List<UUID> leases) {
    limits.slots().giveAllWithTransaction(leases);
  }

  /** Gives back leases now. */
  void giveAll(java.util.List<UUID> leases) {
    limits.slots().giveAll(leases);
  }
}
