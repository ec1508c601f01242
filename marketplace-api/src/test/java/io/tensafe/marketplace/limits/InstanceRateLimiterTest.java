package io.tensafe.marketplace.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class InstanceRateLimiterTest {
  final AtomicLong now = new AtomicLong(1_000_000_000L);
  final InstanceRateLimiter limiter = new InstanceRateLimiter(60, now::get);
  final UUID key = UUID.randomUUID();

  @Test
  void aKeyMayBurstAMinutesAllowance_thenWaitsForTheRefill() {
    for (int i = 0; i < 60; i++) {
      assertEquals(0, limiter.tryAcquire(key), "request " + i);
    }
    assertEquals(1, limiter.tryAcquire(key));
    now.addAndGet(500_000_000L);
    assertEquals(1, limiter.tryAcquire(key), "half a request refilled: wait a second");
    now.addAndGet(500_000_000L);
    assertEquals(0, limiter.tryAcquire(key), "one request refilled after one second");
    assertEquals(1, limiter.tryAcquire(key));
  }

  @Test
  void keysHaveTheirOwnAllowance_andRefillStopsAtAMinutesWorth() {
    for (int i = 0; i < 60; i++) {
      limiter.tryAcquire(key);
    }
    assertEquals(0, limiter.tryAcquire(UUID.randomUUID()));
    now.addAndGet(3_600_000_000_000L);
    for (int i = 0; i < 60; i++) {
      assertEquals(0, limiter.tryAcquire(key), "request " + i);
    }
    assertEquals(1, limiter.tryAcquire(key));
  }

  @Test
  void aSlowAllowance_saysHowLongToWait() {
    InstanceRateLimiter slow = new InstanceRateLimiter(2, now::get);
    assertEquals(0, slow.tryAcquire(key));
    assertEquals(0, slow.tryAcquire(key));
    assertEquals(30, slow.tryAcquire(key));
  }

  @Test
  void take_saysTheLevelItLeft_andLevelRefillsWithoutTaking() {
    assertEquals(60, limiter.level(key).remaining(), "a key never seen: full");
    InstanceRateLimiter.Taken taken = limiter.take(key);
    assertEquals(0, taken.waitSeconds());
    assertEquals(59.0, taken.level().available());
    now.addAndGet(500_000_000L);
    assertEquals(59.5, limiter.level(key).available(), "half a request refilled");
    assertEquals(59.5, limiter.level(key).available(), "reading takes nothing");
  }

  @Test
  void aZeroAllowance_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> new InstanceRateLimiter(0, now::get));
  }
}
