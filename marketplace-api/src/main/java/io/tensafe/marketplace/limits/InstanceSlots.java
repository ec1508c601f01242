package io.tensafe.marketplace.limits;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Slots counted in this process only (the {@code instance} scope of {@link LimitsConfig}): with
 * several replicas each admits up to the limit on its own. Thread-safe.
 */
final class InstanceSlots implements SlotLimiter {
  private final Map<UUID, AtomicInteger> held = new ConcurrentHashMap<>();
  private final Map<UUID, UUID> subjectOf = new ConcurrentHashMap<>();

  @Override
  public Optional<UUID> take(String kind, UUID subject, int max) {
    AtomicInteger count = held.computeIfAbsent(subject, k -> new AtomicInteger());
    if (count.incrementAndGet() > max) {
      count.decrementAndGet();
      return Optional.empty();
    }
    UUID lease = UUID.randomUUID();
    subjectOf.put(lease, subject);
    return Optional.of(lease);
  }

  @Override
  public void give(UUID lease) {
    UUID subject = subjectOf.remove(lease);
    if (subject != null) {
      held.get(subject).decrementAndGet();
    }
  }

  @Override
  public int[] held(List<UUID> subjects) {
    return subjects.stream()
        .mapToInt(s -> held.getOrDefault(s, new AtomicInteger()).get())
        .toArray();
  }
}
