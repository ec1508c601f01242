package io.tensafe.marketplace.limits;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Requests per minute per API key, as a token bucket per key in this process only (the {@code
 * instance} scope of {@link LimitsConfig}): a key may burst up to a minute's allowance, which
 * refills evenly over the minute. Thread-safe.
 */
final class InstanceRateLimiter {
  private final int perMinute;
  private final LongSupplier nanoTime;
  private final Map<UUID, Bucket> buckets = new ConcurrentHashMap<>();

  /**
   * @param perMinute requests a key may start per minute, ≥ 1
   * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime})
   */
  InstanceRateLimiter(int perMinute, LongSupplier nanoTime) {
    if (perMinute < 1) {
      throw new IllegalArgumentException("requests per minute must be >= 1, was " + perMinute);
    }
    this.perMinute = perMinute;
    this.nanoTime = nanoTime;
  }

  int perMinute() {
    return perMinute;
  }

  /**
   * Takes one request from {@code key}'s allowance.
   *
   * @return 0 if the request may start; otherwise the whole seconds (≥ 1) until one may
   */
  int tryAcquire(UUID key) {
    return take(key).waitSeconds();
  }

  /**
   * What {@link #take} decided, and the key's bucket right after it.
   *
   * @param waitSeconds 0 when taken; otherwise the whole seconds (≥ 1) until a request may be
   */
  record Taken(int waitSeconds, KeyRateLevel level) {}

  /** Takes one request from {@code key}'s allowance, as {@link #tryAcquire}, and its level. */
  Taken take(UUID key) {
    return bucket(key).take();
  }

  /** {@code key}'s bucket now, refilled to this moment; full for a key never seen. */
  KeyRateLevel level(UUID key) {
    Bucket b = buckets.get(key);
    return b == null ? KeyRateLevel.full(perMinute) : b.level();
  }

  private Bucket bucket(UUID key) {
    return buckets.computeIfAbsent(key, k -> new Bucket(perMinute, nanoTime.getAsLong()));
  }

  private final class Bucket {
    /** Requests that may start now, in [0, perMinute]. */
    private double available;

    private long refilledAt;

    Bucket(double available, long now) {
      this.available = available;
      this.refilledAt = now;
    }

    private void refill() {
      long now = nanoTime.getAsLong();
      available = Math.min(perMinute, available + (now - refilledAt) * perMinute / 60e9);
      refilledAt = now;
    }

    synchronized Taken take() {
      refill();
      if (available >= 1) {
        available -= 1;
        return new Taken(0, new KeyRateLevel(perMinute, available));
      }
      double seconds = (1 - available) * 60.0 / perMinute;
      return new Taken(
          Math.max(1, (int) Math.ceil(seconds)), new KeyRateLevel(perMinute, available));
    }

    synchronized KeyRateLevel level() {
      refill();
      return new KeyRateLevel(perMinute, available);
    }
  }
}
