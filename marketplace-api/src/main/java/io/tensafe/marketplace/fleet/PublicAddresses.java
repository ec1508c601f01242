package io.tensafe.marketplace.fleet;

import java.net.InetAddress;
import java.util.List;

/**
 * Which addresses are public: reachable on the internet and not the marketplace's own host or
 * network. Not public: the special-purpose ranges of RFC 6890 and its updates — this host
 * (0.0.0.0/8, ::/128), loopback (127.0.0.0/8, ::1), private networks (10/8, 172.16/12, 192.168/16,
 * fc00::/7), shared address space (100.64/10), link-local (169.254/16 with the cloud metadata
 * address, fe80::/10), the IETF, documentation and benchmarking ranges, multicast, reserved (240/4)
 * and broadcast; an IPv6 address that carries an IPv4 address counts as that address: IPv4-mapped
 * ({@code ::ffff:0:0/96}), NAT64 ({@code 64:ff9b::/96}), the deprecated IPv4-compatible ({@code
 * ::/96}, which a host with a {@code sit} tunnel sends to its IPv4 address) and 6to4 ({@code
 * 2002::/16}, whose relay is the embedded IPv4 address): {@code [::127.0.0.1]} or {@code
 * [2002:a9fe:a9fe::]} is as inward as the address it carries.
 */
final class PublicAddresses {
  private PublicAddresses() {}

  private static final List<NetworkRange> NOT_PUBLIC =
      List.of(
              "0.0.0.0/8",
              "10.0.0.0/8",
              "100.64.0.0/10",
              "127.0.0.0/8",
              "169.254.0.0/16",
              "172.16.0.0/12",
              "192.0.0.0/24",
              "192.0.2.0/24",
              "192.88.99.0/24",
              "192.168.0.0/16",
              "198.18.0.0/15",
              "198.51.100.0/24",
              "203.0.113.0/24",
              "224.0.0.0/4",
              "240.0.0.0/4",
              "::/128",
              "::1/128",
              "100::/64",
              "2001::/23",
              "2001:db8::/32",
              "fc00::/7",
              "fe80::/10",
              "fec0::/10",
              "ff00::/8")
          .stream()
          .map(NetworkRange::parse)
          .toList();

  private static final NetworkRange NAT64 = NetworkRange.parse("64:ff9b::/96");
  private static final NetworkRange IPV4_COMPATIBLE = NetworkRange.parse("::/96");
  private static final NetworkRange SIX_TO_FOUR = NetworkRange.parse("2002::/16");

  /** Whether {@code address} is public. */
  static boolean isPublic(InetAddress address) {
    InetAddress a = embeddedIpv4(address);
    if (a.isAnyLocalAddress()
        || a.isLoopbackAddress()
        || a.isLinkLocalAddress()
        || a.isSiteLocalAddress()
        || a.isMulticastAddress()) {
      return false;
    }
    return NOT_PUBLIC.stream().noneMatch(r -> r.contains(a));
  }

  private static boolean ipv4Mapped(byte[] b) {
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return b[10] == (byte) 0xFF && b[11] == (byte) 0xFF;
  }

  /**
   * The IPv4 address an IPv4-mapped, NAT64, IPv4-compatible or 6to4 IPv6 address carries; else
   * {@code address}.
   */
  static InetAddress embeddedIpv4(InetAddress address) {
    byte[] b = address.getAddress();
    if (b.length != 16) {
      return address;
    }
    // Java reads an IPv4-mapped address (::ffff:a.b.c.d) as its IPv4 address already.
    if (ipv4Mapped(b) || NAT64.contains(address) || IPV4_COMPATIBLE.contains(address)) {
      return ipv4(java.util.Arrays.copyOfRange(b, 12, 16));
    }
    if (SIX_TO_FOUR.contains(address)) {
      return ipv4(java.util.Arrays.copyOfRange(b, 2, 6));
    }
    return address;
  }

  private static InetAddress ipv4(byte[] four) {
    try {
      return InetAddress.getByAddress(four);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}
