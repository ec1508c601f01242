package io.tensafe.marketplace.limits;

import java.time.Duration;

/**
 * An API key's requests-per-minute bucket as the limiter held it at one moment (right after a
 * request drew from it, or was refused by it): a minute's allowance as a burst, refilled evenly.
 *
 * @param perMinute the requests the key may start per minute, the bucket's size (≥ 1)
 * @param available the requests the bucket held then, a fraction in [0, perMinute]
 */
public record KeyRateLevel(int perMinute, double available) {
  public KeyRateLevel {
    if (perMinute < 1) {
      throw new IllegalArgumentException("requests per minute must be >= 1, was " + perMinute);
    }
    if (!(available >= 0 && available <= perMinute)) {
      throw new IllegalArgumentException(
          "a bucket of " + perMinute + " holds [0, " + perMinute + "] requests, was " + available);
    }
  }

  /** A bucket no request has drawn from yet (or that refilled completely): full. */
  public static KeyRateLevel full(int perMinute) {
    return new KeyRateLevel(perMinute, perMinute);
  }

  /** Whole requests the key may still start now. */
  public int remaining() {
    return (int) Math.floor(available);
  }

  /** How long until the bucket is full again if nothing draws from it, rounded up to the ms. */
  public Duration untilFull() {
    return Duration.ofMillis((long) Math.ceil((perMinute - available) * 60_000.0 / perMinute));
  }

  /**
   * This bucket {@code elapsed} later when nothing drew from it meanwhile: exact while it held
   * under one request, as a refused request draws nothing.
   */
  public KeyRateLevel refilledAfter(Duration elapsed) {
    double refilled = available + elapsed.toNanos() * (double) perMinute / 60e9;
    return new KeyRateLevel(perMinute, Math.min(perMinute, refilled));
  }
}
