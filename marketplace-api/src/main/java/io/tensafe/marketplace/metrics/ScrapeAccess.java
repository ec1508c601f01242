package io.tensafe.marketplace.metrics;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Who may read {@code /metrics}: with a scrape token configured ({@code TENSAFE_METRICS_TOKEN}),
 * whoever presents it as {@code Authorization: Bearer <token>}; without one, only callers on the
 * loopback interface, and only where loopback is trusted ({@code trustLoopback}: the demo). In the
 * production profile loopback is not trusted — behind a proxy on the same host every caller looks
 * local — so only the token's holder scrapes, and without a token nobody does. Metrics name
 * adapters, nodes and volumes, which are not for anyone who can reach the port.
 *
 * @param token the scrape token; empty for none
 * @param trustLoopback whether a loopback caller may scrape without the token (never when a token
 *     is configured)
 */
public record ScrapeAccess(Optional<String> token, boolean trustLoopback) {
  /** Whether a request from {@code remoteHost} with this Authorization header may scrape. */
  public boolean allows(String remoteHost, String authorization) {
    if (token.isPresent()) {
      byte[] expected = ("Bearer " + token.get()).getBytes(StandardCharsets.UTF_8);
      byte[] given =
          authorization == null ? new byte[0] : authorization.getBytes(StandardCharsets.UTF_8);
      return MessageDigest.isEqual(expected, given);
    }
    if (!trustLoopback) {
      return false;
    }
    try {
      return remoteHost != null && InetAddress.getByName(remoteHost).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
