package io.tensafe.marketplace.openai;

import io.tensafe.marketplace.limits.KeyRateLevel;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import java.time.Duration;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * OpenAI's {@code x-ratelimit-*-requests} headers on the completions endpoints' answers (success,
 * stream and error alike), from the API key's requests-per-minute bucket as the request left it
 * ({@link KeyRateLevel}, told by the gateway; {@link #remember}): {@code limit} the requests per
 * minute, {@code remaining} the whole requests the bucket holds, {@code reset} how long until it is
 * full again, as OpenAI writes durations ({@link #duration}). An answer whose request never reached
 * the bucket (a malformed body, an unknown key) carries none. There is no limit on tokens per
 * minute, so the {@code *-tokens} headers are not sent (marketplace-api/README.md, limits).
 */
public class RateLimitHeaders {
  /** The request property holding the request's {@link KeyRateLevel}. */
  static final String PROPERTY = RateLimitHeaders.class.getName();

  static final String LIMIT_REQUESTS = "x-ratelimit-limit-requests";
  static final String REMAINING_REQUESTS = "x-ratelimit-remaining-requests";
  static final String RESET_REQUESTS = "x-ratelimit-reset-requests";

  /** Keeps {@code level} as the request's, for the answer's headers (the last one told wins). */
  static void remember(ContainerRequestContext request, KeyRateLevel level) {
    request.setProperty(PROPERTY, level);
  }

  @ServerResponseFilter
  public void addHeaders(ContainerRequestContext request, ContainerResponseContext response) {
    if (!(request.getProperty(PROPERTY) instanceof KeyRateLevel level)) {
      return;
    }
    var headers = response.getHeaders();
    headers.putSingle(LIMIT_REQUESTS, String.valueOf(level.perMinute()));
    headers.putSingle(REMAINING_REQUESTS, String.valueOf(level.remaining()));
    headers.putSingle(RESET_REQUESTS, duration(level.untilFull()));
  }

  /**
   * {@code d} as OpenAI writes a reset time (Go's duration format, to the millisecond): under a
   * second in milliseconds ({@code "20ms"}, {@code "0s"} for none), else hours, minutes and seconds
   * with the seconds' fraction and no trailing zeros ({@code "1s"}, {@code "1.5s"}, {@code "6m0s"},
   * {@code "1h0m0.25s"}).
   *
   * @throws IllegalArgumentException for a negative duration
   */
  static String duration(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("a reset time is never negative, was " + d);
    }
    long millis = d.toMillis();
    if (millis == 0) {
      return "0s";
    }
    if (millis < 1000) {
      return millis + "ms";
    }
    StringBuilder s = new StringBuilder();
    long hours = millis / 3_600_000;
    long minutes = millis / 60_000 % 60;
    if (hours > 0) {
      s.append(hours).append('h');
    }
    if (hours > 0 || minutes > 0) {
      s.append(minutes).append('m');
    }
    s.append(millis / 1000 % 60);
    long fraction = millis % 1000;
    if (fraction > 0) {
      String digits = String.format("%03d", fraction);
      s.append('.').append(digits.replaceFirst("0+$", ""));
    }
    return s.append('s').toString();
  }
}
