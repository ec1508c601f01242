package io.tensafe.marketplace.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ScrapeAccessTest {
  @Test
  void withoutAToken_onlyLoopbackCallersMayScrape() {
    ScrapeAccess open = new ScrapeAccess(Optional.empty(), true);
    assertTrue(open.allows("127.0.0.1", null));
    assertTrue(open.allows("::1", null));
    assertFalse(open.allows("10.1.2.3", null));
    assertFalse(open.allows("192.168.0.7", "Bearer anything"));
    assertFalse(open.allows(null, null));
  }

  @Test
  void withAToken_onlyItsHolderMayScrape_fromAnywhere() {
    ScrapeAccess guarded = new ScrapeAccess(Optional.of("s3cret-scrape-token"), true);
    assertTrue(guarded.allows("10.1.2.3", "Bearer s3cret-scrape-token"));
    assertFalse(guarded.allows("127.0.0.1", null));
    assertFalse(guarded.allows("127.0.0.1", "Bearer wrong"));
  }

  /** Production: a proxy on the same host makes every caller look local; only the token counts. */
  @Test
  void inProduction_loopbackIsNotTrusted_withOrWithoutAToken() {
    assertFalse(new ScrapeAccess(Optional.empty(), false).allows("127.0.0.1", null));
    ScrapeAccess guarded = new ScrapeAccess(Optional.of("s3cret-scrape-token"), false);
    assertFalse(guarded.allows("127.0.0.1", null));
    assertTrue(guarded.allows("127.0.0.1", "Bearer s3cret-scrape-token"));
  }
}
