package io.tensafe.marketplace.limits;

import java.util.UUID;

/**
 * Requests per minute per API key: a token bucket per key that holds at most a minute's allowance
 * and refills evenly over the minute. Thread-safe.
 */
public interface RateLimiter {
  /** Requests a key may start per minute, ≥ 1. */
  int perMinute();

  /**
   * Takes one request from {@code key}'s allowance.
   *
   * @return 0 if the request may start; otherwise the whole seconds (≥ 1) until one may
   */
  int tryAcquire(UUID key);
}
