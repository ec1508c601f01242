package io.tensafe.marketplace.fleet;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

/**
 * Writes how nodes earn slots ({@code tensafe.nodes.unproven-slots}, {@code completed-per-slot},
 * {@code served-window}) into the database's one-row {@code node_slot_rule} at start, where the
 * dispatch query reads it ({@code node_slots}, migration V31, ADR 0029). Replicas are expected to
 * share these settings; if they differ, the last to start wins for all.
 */
@ApplicationScoped
public class NodeSlotRule {
  @Inject NodesConfig nodes;
  @Inject EntityManager em;

  @Transactional
  void write(@Observes StartupEvent start) {
    if (nodes.unprovenSlots() < 1 || nodes.unprovenSlots() > 4096) {
      throw new IllegalStateException(
          "tensafe.nodes.unproven-slots is " + nodes.unprovenSlots() + "; it must be 1 to 4096");
    }
    if (nodes.completedPerSlot() < 1) {
      throw new IllegalStateException(
          "tensafe.nodes.completed-per-slot is " + nodes.completedPerSlot() + "; it must be ≥ 1");
    }
    long window = nodes.servedWindow().toSeconds();
    if (window < 60 || window > 86_400) {
      throw new IllegalStateException(
          "tensafe.nodes.served-window is " + nodes.servedWindow() + "; it must be 1 min to 1 day");
    }
    em.createNativeQuery(
            "UPDATE node_slot_rule SET unproven_slots = :u, completed_per_slot = :c,"
                + " window_seconds = :w")
        .setParameter("u", nodes.unprovenSlots())
        .setParameter("c", nodes.completedPerSlot())
        .setParameter("w", (int) window)
        .executeUpdate();
  }
}
