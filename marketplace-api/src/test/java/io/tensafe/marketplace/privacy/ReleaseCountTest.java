package io.tensafe.marketplace.privacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ReleaseCountTest {
  @Test
  void settled_promptAndAllButTheLastToken_timesInputs() {
    // 5 prompt tokens, 8 generated: 5 + 7 tokens run, 4 inputs each.
    assertEquals(48, ReleaseCount.settled(48, 5, 8, 4));
  }

  @Test
  void settled_aNodeReportingFewer_isOverruledByItsTokenCounts() {
    assertEquals(48, ReleaseCount.settled(0, 5, 8, 4));
    assertEquals(48, ReleaseCount.settled(47, 5, 8, 4));
  }

  @Test
  void settled_aNodeReportingMore_isBelieved() {
    assertEquals(60, ReleaseCount.settled(60, 5, 8, 4));
  }

  @Test
  void settled_stoppedBeforeItsFirstToken_countsThePrefill() {
    assertEquals(20, ReleaseCount.settled(0, 5, 0, 4));
  }

  @Test
  void settled_negativeCounts_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> ReleaseCount.settled(-1, 5, 8, 4));
  }
}
