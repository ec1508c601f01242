package io.tensafe.marketplace.fleet;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;

/**
 * Where the marketplace may send a node's requests (ADR 0028). A node endpoint is checked whole
 * ({@link NodeEndpoint}) and, when {@link NodeAddressConfig#publicOnly} is on (the production
 * profile), its host is resolved and every address it resolves to must be public ({@link
 * PublicAddresses}) or in an allow-listed network: so a node cannot aim the marketplace's
 * authenticated requests at the cloud's metadata address, Keycloak's port or the database's host.
 * Checked at registration and again at every dispatch, on the address the request then connects to:
 * an {@code http} endpoint is given back with the checked address in place of its name (the
 * connection goes to that address, whatever the name resolves to later); an {@code https} endpoint
 * keeps its name for TLS, and its connection resolves it from the same cached lookup (the JVM's
 * positive cache, {@code networkaddress.cache.ttl}) this check just read.
 */
@ApplicationScoped
public class NodeAddresses {
  private final boolean publicOnly;
  private final List<NetworkRange> allowed;

  @Inject
  NodeAddresses(NodeAddressConfig config) {
    this(
        config.publicOnly(),
        config.allowedNetworks().orElse(List.of()).stream()
            .filter(s -> !s.isBlank())
            .map(NetworkRange::parse)
            .toList());
  }

  /** For tests: the rule with these settings. */
  NodeAddresses(boolean publicOnly, List<NetworkRange> allowed) {
    this.publicOnly = publicOnly;
    this.allowed = List.copyOf(allowed);
  }

  /**
   * The base URI to send {@code url}'s requests to, or empty with why in {@code reason}: as {@link
   * NodeEndpoint#parse}, and when only public addresses are allowed, its host resolved and checked,
   * an {@code http} endpoint's host replaced by the address checked.
   */
  public Optional<URI> usable(String url, StringBuilder reason) {
    Optional<URI> parsed = NodeEndpoint.parse(url, reason);
    if (parsed.isEmpty() || !publicOnly) {
      return parsed;
    }
    URI uri = parsed.get();
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(uri.getHost());
    } catch (UnknownHostException e) {
      reason.append("its host ").append(uri.getHost()).append(" does not resolve");
      return Optional.empty();
    }
    for (InetAddress a : addresses) {
      if (!PublicAddresses.isPublic(a) && allowed.stream().noneMatch(r -> r.contains(a))) {
        reason
            .append("its host resolves to ")
            .append(a.getHostAddress())
            .append(", which is not a public address nor in an allow-listed node network")
            .append(" (tensafe.nodes.addresses.allowed-networks)");
        return Optional.empty();
      }
    }
    if (!uri.getScheme().equals("http")) {
      return parsed;
    }
    String host = addresses[0].getHostAddress();
    String literal = host.contains(":") ? "[" + host + "]" : host;
    return Optional.of(
        URI.create("http://" + literal + (uri.getPort() == -1 ? "" : ":" + uri.getPort()) + "/"));
  }
}
