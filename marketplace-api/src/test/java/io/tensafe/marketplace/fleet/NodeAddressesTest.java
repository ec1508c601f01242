package io.tensafe.marketplace.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which addresses a node endpoint may reach in production (ADR 0028). */
class NodeAddressesTest {
  private static InetAddress ip(String literal) throws Exception {
    return InetAddress.getByName(literal);
  }

  @Test
  void inwardAddresses_areNotPublic_inEitherFamily_orMappedOrTranslated() throws Exception {
    for (String inward :
        List.of(
            "127.0.0.1",
            "127.9.9.9",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            // IPv4-compatible and 6to4 addresses carrying an inward IPv4 address.
            "::127.0.0.1",
            "::a9fe:a9fe",
            "2002:7f00:1::",
            "2002:a9fe:a9fe::1",
            "2002:a00:1::")) {
      assertFalse(PublicAddresses.isPublic(ip(inward)), inward);
    }
    for (String outside :
        List.of("8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111", "2002:808:808::")) {
      assertTrue(PublicAddresses.isPublic(ip(outside)), outside);
    }
  }

  @Test
  void networkRanges_parseAndContain() throws Exception {
    NetworkRange r = NetworkRange.parse("10.20.0.0/16");
    assertTrue(r.contains(ip("10.20.255.1")));
    assertFalse(r.contains(ip("10.21.0.1")));
    assertFalse(r.contains(ip("fd00::1")));
    assertEquals("10.20.0.0/16", NetworkRange.parse("10.20.7.7/16").toString());
    assertTrue(NetworkRange.parse("fd00::/8").contains(ip("fd12::3")));
    assertThrows(IllegalArgumentException.class, () -> NetworkRange.parse("10.0.0.0"));
    assertThrows(IllegalArgumentException.class, () -> NetworkRange.parse("10.0.0.0/33"));
    assertThrows(IllegalArgumentException.class, () -> NetworkRange.parse("intranet/8"));
  }

  @Test
  void publicOnly_refusesInwardEndpoints_andPinsAnHttpEndpointToTheAddressChecked() {
    NodeAddresses rule = new NodeAddresses(true, List.of(NetworkRange.parse("10.20.0.0/16")));
    for (String url :
        List.of(
            "http://169.254.169.254",
            "http://127.0.0.1:8180",
            "http://[::1]:8080",
            "http://localhost:8080",
            "https://10.0.0.5:8443",
            "http://no-such-host.invalid:8080",
            // Other spellings of loopback and the metadata address.
            "http://2130706433",
            "http://0x7f.1",
            "http://127.1",
            "http://localhost.:8080",
            "http://[::127.0.0.1]:8080",
            "http://[2002:a9fe:a9fe::]",
            "http://[fe80::1%25eth0]:8080")) {
      StringBuilder why = new StringBuilder();
      assertTrue(rule.usable(url, why).isEmpty(), url);
      assertFalse(why.isEmpty(), url);
    }
    assertEquals(
        "http://10.20.1.2:9000/",
        rule.usable("http://10.20.1.2:9000", new StringBuilder()).get().toString());
    assertEquals(
        "https://8.8.8.8:8443/",
        rule.usable("https://8.8.8.8:8443", new StringBuilder()).get().toString());
    // Java reads 0177.0.0.1 as decimal 177.0.0.1, not octal loopback: the check and the
    // connection agree, since the connection goes to the address checked.
    assertEquals(
        "http://177.0.0.1/",
        rule.usable("http://0177.0.0.1", new StringBuilder()).get().toString());
    // The demo's rule: any address.
    assertTrue(
        new NodeAddresses(false, List.of())
            .usable("http://127.0.0.1:1", new StringBuilder())
            .isPresent());
  }
}
