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
  /**
   * Takes one request from {@code key}'s allowance.
   *
   * @return 0 if the request may start; otherwise the whole seconds (≥ 1) until one may
   */
  int tryAcquire(UUID key) {
    return buckets.computeIfAbsent(key, k -> new Bucket(perMinute, nanoTime.getAsLong())).take();
  }

  private final class Bucket {
    /** Requests that may start now, in [0, perMinute]. */
    private double available;

    private long refilledAt;

    Bucket(double available, long now) {
      this.available = available;
      this.refilledAt = now;
    }

    synchronized int take() {
      long now = nanoTime.getAsLong();
      available = Math.min(perMinute, available + (now - refilledAt) * perMinute / 60e9);
      refilledAt = now;
      if (available >= 1) {
        available -= 1;
        return 0;
      }
      double seconds = (1 - available) * 60.0 / perMinute;
      return Math.max(1, (int) Math.ceil(seconds));
    }
  }
}
