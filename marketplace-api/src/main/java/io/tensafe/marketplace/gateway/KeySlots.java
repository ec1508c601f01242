package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.apikey.ApiKeyPrincipal;
import io.tensafe.marketplace.limits.Limits;
import io.tensafe.marketplace.limits.LimitsConfig;
import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.UUID;

/**
 * An API key's request slots, hosted requests and private sessions alike: its rate per minute and
 * its requests in flight, counted for every replica together unless {@code tensafe.limits.scope}
 * says otherwise. Counted in the database, a request's slot is taken by the admission's one call
 * ({@link #inTheAdmission}); counted in memory, by {@link #take}. Every slot taken is given back
 * once, by whoever ends the request.
 */
@ApplicationScoped
public class KeySlots {
  @Inject GatewayConfig gateway;
  @Inject Limits limits;

  /**
   * What the admission's database call needs to take the key's rate and slot itself, when they are
   * counted in the database: a new lease id, the rate per minute and the slots per key.
   */
  public record InTheAdmission(UUID lease, int perMinute, int maxInFlight) {}

  /** The key's slot for the admission's call to take, or null when {@link #take} takes it. */
  InTheAdmission inTheAdmission() {
    return limits.scope() == LimitsConfig.Scope.SHARED
        ? new InTheAdmission(
            UUID.randomUUID(), limits.requestsPerMinute(), gateway.maxConcurrencyPerKey())
        : null;
  }

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
    throw refusal(admission.rateLimited(), admission.retryAfterSeconds());
  }

  /**
   * Spends one request of {@code key}'s rate for a request refused before its admission (a refused
   * request counts against the rate, as it did when the rate was taken first).
   *
   * @throws ApiProblem 429 as {@link #take}, which then answers instead of the refusal
   */
  void spendRefused(ApiKeyPrincipal key) {
    give(take(key));
  }

  /** The 429 a key over its rate ({@code rateLimited}) or its slots gets. */
  ApiProblem refusal(boolean rateLimited, int retryAfterSeconds) {
    return new ApiProblem(
        ProblemKind.RATE_LIMITED,
        rateLimited
            ? "this API key may start " + limits.requestsPerMinute() + " requests per minute"
            : "this API key already has " + gateway.maxConcurrencyPerKey() + " requests in flight",
        Math.max(1, retryAfterSeconds));
  }

  /** Gives back a slot {@link #take} or the admission took. */
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
