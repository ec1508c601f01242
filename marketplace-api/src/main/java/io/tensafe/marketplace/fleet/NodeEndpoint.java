package io.tensafe.marketplace.fleet;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * A node's generation endpoint, checked whole: {@code http} or {@code https}, a host, a port in
 * 1..65535 when one is given, and nothing else (no user info, path, query or fragment). Checked at
 * registration, and again before dispatch for rows stored before this check existed, so one bad URL
 * can never fail a request or hold a slot.
 */
public final class NodeEndpoint {
  private NodeEndpoint() {}

  /** The endpoint as a base URI ending in "/", or empty with why in {@code reason}. */
  public static Optional<URI> parse(String url, StringBuilder reason) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      reason.append(e.getMessage());
      return Optional.empty();
    }
    String scheme = uri.getScheme();
    if (scheme == null || !(scheme.equals("http") || scheme.equals("https"))) {
      reason.append("the scheme must be http or https");
    } else if (uri.getHost() == null) {
      reason.append("it has no valid host name");
    } else if (uri.getPort() != -1 && (uri.getPort() < 1 || uri.getPort() > 65535)) {
      reason.append("the port " + uri.getPort() + " is outside 1..65535");
    } else if (uri.getRawUserInfo() != null
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null
        || !(uri.getRawPath() == null
            || uri.getRawPath().isEmpty()
            || uri.getRawPath().equals("/"))) {
      reason.append("it must be http(s)://host[:port] with no user, path, query or fragment");
    } else {
      return Optional.of(URI.create(scheme + "://" + uri.getRawAuthority() + "/"));
    }
    return Optional.empty();
  }
}
