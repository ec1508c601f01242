package io.tensafe.marketplace.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class KeyRateLevelTest {
  @Test
  void remaining_isTheWholeRequestsHeld() {
    assertEquals(29, new KeyRateLevel(30, 29.99).remaining());
    assertEquals(0, new KeyRateLevel(30, 0.99).remaining());
    assertEquals(30, KeyRateLevel.full(30).remaining());
  }

  @Test
  void untilFull_isTheRefillOfWhatIsMissing_roundedUpToTheMillisecond() {
    // 30 per minute: one request every 2 s.
    assertEquals(Duration.ofSeconds(2), new KeyRateLevel(30, 29).untilFull());
    assertEquals(Duration.ofMillis(59_500), new KeyRateLevel(30, 0.25).untilFull());
    assertEquals(Duration.ofMillis(1), new KeyRateLevel(600, 599.99999).untilFull());
    assertEquals(Duration.ZERO, KeyRateLevel.full(30).untilFull());
    assertEquals(Duration.ofMinutes(1), new KeyRateLevel(600, 0).untilFull());
  }

  @Test
  void refilledAfter_addsTheRefill_upToTheBucketsSize() {
    assertEquals(0.75, new KeyRateLevel(30, 0.25).refilledAfter(Duration.ofSeconds(1)).available());
    assertEquals(30, new KeyRateLevel(30, 29).refilledAfter(Duration.ofSeconds(10)).available());
  }

  @Test
  void aLevelOutsideTheBucket_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> new KeyRateLevel(0, 0));
    assertThrows(IllegalArgumentException.class, () -> new KeyRateLevel(30, -0.1));
    assertThrows(IllegalArgumentException.class, () -> new KeyRateLevel(30, 30.5));
    assertThrows(IllegalArgumentException.class, () -> new KeyRateLevel(30, Double.NaN));
  }
}
