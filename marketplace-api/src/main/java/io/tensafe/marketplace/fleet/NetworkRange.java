package io.tensafe.marketplace.fleet;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IP network in CIDR notation: an address of 4 or 16 bytes and a prefix length of 0..32 or
 * 0..128 bits. An IPv4 range never contains an IPv6 address, nor the reverse.
 *
 * @param network the network's address, bits past the prefix cleared
 * @param prefixBits the prefix's length in bits
 */
public record NetworkRange(byte[] network, int prefixBits) {
  public NetworkRange {
    if (network.length != 4 && network.length != 16) {
      throw new IllegalArgumentException("a network address has 4 or 16 bytes");
    }
    if (prefixBits < 0 || prefixBits > network.length * 8) {
      throw new IllegalArgumentException(
          "a prefix of " + prefixBits + " bits is outside 0.." + network.length * 8);
    }
    network = masked(network.clone(), prefixBits);
  }

  /**
   * The range {@code cidr} names, for example {@code 10.0.0.0/8} or {@code fd00::/8}; an IP literal
   * only (no name is resolved).
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static NetworkRange parse(String cidr) {
    String text = cidr.strip();
    int slash = text.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("'" + cidr + "' is not address/prefix");
    }
    String address = text.substring(0, slash);
    if (!address.matches("[0-9a-fA-F:.]+")) {
      throw new IllegalArgumentException("'" + cidr + "' does not start with an IP address");
    }
    byte[] bytes;
    try {
      bytes = InetAddress.getByName(address).getAddress(); // a literal: no lookup
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("'" + cidr + "' does not start with an IP address");
    }
    int bits;
    try {
      bits = Integer.parseInt(text.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + cidr + "' has no prefix length");
    }
    return new NetworkRange(bytes, bits);
  }

  /** Whether {@code address} lies in this range. */
  public boolean contains(InetAddress address) {
    byte[] a = address.getAddress();
    return a.length == network.length
        && java.util.Arrays.equals(masked(a.clone(), prefixBits), network);
  }

  private static byte[] masked(byte[] bytes, int bits) {
    for (int i = 0; i < bytes.length; i++) {
      int keep = Math.clamp(bits - i * 8L, 0, 8);
      bytes[i] = (byte) (bytes[i] & (0xFF00 >> keep));
    }
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NetworkRange r
        && r.prefixBits == prefixBits
        && java.util.Arrays.equals(r.network, network);
  }

  @Override
  public int hashCode() {
    return 31 * java.util.Arrays.hashCode(network) + prefixBits;
  }

  @Override
  public String toString() {
    try {
      return InetAddress.getByAddress(network).getHostAddress() + "/" + prefixBits;
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}
