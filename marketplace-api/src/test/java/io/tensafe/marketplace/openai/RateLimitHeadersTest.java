package io.tensafe.marketplace.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Reset times written as OpenAI writes them (Go's duration format, to the millisecond). */
class RateLimitHeadersTest {
  @Test
  void duration_underASecond_isInMilliseconds() {
    assertEquals("0s", RateLimitHeaders.duration(Duration.ZERO));
    assertEquals("0s", RateLimitHeaders.duration(Duration.ofNanos(999_999)));
    assertEquals("1ms", RateLimitHeaders.duration(Duration.ofMillis(1)));
    assertEquals("20ms", RateLimitHeaders.duration(Duration.ofMillis(20)));
    assertEquals("999ms", RateLimitHeaders.duration(Duration.ofMillis(999)));
  }

  @Test
  void duration_ofSeconds_hasItsFractionWithoutTrailingZeros() {
    assertEquals("1s", RateLimitHeaders.duration(Duration.ofSeconds(1)));
    assertEquals("1.5s", RateLimitHeaders.duration(Duration.ofMillis(1500)));
    assertEquals("1.05s", RateLimitHeaders.duration(Duration.ofMillis(1050)));
    assertEquals("1.999s", RateLimitHeaders.duration(Duration.ofMillis(1999)));
    assertEquals("59.5s", RateLimitHeaders.duration(Duration.ofMillis(59_500)));
  }

  @Test
  void duration_ofMinutesAndHours_namesEveryUnitBelowTheLargest() {
    assertEquals("1m0s", RateLimitHeaders.duration(Duration.ofMinutes(1)));
    assertEquals("6m0s", RateLimitHeaders.duration(Duration.ofMinutes(6)));
    assertEquals("1m30.25s", RateLimitHeaders.duration(Duration.ofMillis(90_250)));
    assertEquals("1h0m0s", RateLimitHeaders.duration(Duration.ofHours(1)));
    assertEquals("2h3m4s", RateLimitHeaders.duration(Duration.ofSeconds(2 * 3600 + 3 * 60 + 4)));
  }

  @Test
  void duration_negative_isRefused() {
    assertThrows(
        IllegalArgumentException.class, () -> RateLimitHeaders.duration(Duration.ofMillis(-1)));
  }
}
