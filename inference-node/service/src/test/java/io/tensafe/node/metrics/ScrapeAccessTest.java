package io.tensafe.node.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Behind a TLS terminator on the node's host every caller looks local (issue 35). */
class ScrapeAccessTest {
  @Test
  void loopbackNotTrusted_onlyTheTokensHolderScrapes() {
    assertTrue(new ScrapeAccess(Optional.empty(), true).allows("127.0.0.1", null));
    assertFalse(new ScrapeAccess(Optional.empty(), false).allows("127.0.0.1", null));
    ScrapeAccess guarded = new ScrapeAccess(Optional.of("node-scrape-token"), false);
    assertFalse(guarded.allows("127.0.0.1", null));
    assertTrue(guarded.allows("10.2.3.4", "Bearer node-scrape-token"));
  }
}
