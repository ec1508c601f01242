package io.tensafe.marketplace.limits;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Slots of a limited resource (an API key's concurrent requests, a node's concurrency): whoever
 * takes one holds a lease until it gives it back. Thread-safe.
 */
public interface SlotLimiter {
  /**
   * Takes one of {@code subject}'s {@code max} slots.
   *
   * @param kind what the subject is ("key" or "node"), for admins reading the leases
   * @param max slots the subject has, ≥ 1
   * @return the lease, or empty when all {@code max} are held
   */
  Optional<UUID> take(String kind, UUID subject, int max);

  /**
   * Gives back a lease {@link #take} returned; giving one back twice, or an unknown one, is a
   * no-op.
   */
  void give(UUID lease);

  /** Gives back several leases, as {@link #give} does each (in one step where the store allows). */
  default void giveAll(List<UUID> leases) {
    leases.forEach(this::give);
  }

  /**
   * Gives back {@code leases} within the caller's transaction where the store is transactional, so
   * that they go with its commit at no extra round trip; if that transaction rolls back, the caller
   * gives them back again with {@link #giveAll}. Elsewhere the same as {@link #giveAll}.
   */
  default void giveAllWithTransaction(List<UUID> leases) {
    giveAll(leases);
  }

  /** Slots of each subject held now, in the order of {@code subjects}. */
  int[] held(List<UUID> subjects);
}
