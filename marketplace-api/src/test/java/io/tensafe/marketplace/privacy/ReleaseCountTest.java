package io.tensafe.marketplace.privacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ReleaseCountTest {
  // Prompt 5, 8 relayed, run-ahead 64, 4 releases per token: implied (5 + 8 − 1) × 4 = 48, bound
  // (5 + 8 + 64) × 4 = 308.

  @Test
  void anHonestClaimWithinTheBoundsIsSettledAsClaimed() {
    assertEquals(48, ReleaseCount.settled(48, 5, 8, 64, 4));
    assertEquals(60, ReleaseCount.settled(60, 5, 8, 64, 4));
  }

  @Test
  void aClaimBelowWhatTheRelayedTokensImplyIsRaisedToIt() {
    assertEquals(48, ReleaseCount.settled(0, 5, 8, 64, 4));
    assertEquals(48, ReleaseCount.settled(-7, 5, 8, 64, 4));
  }

  @Test
  void aClaimAboveWhatWasServedIsCutToTheBound() {
    assertEquals(308, ReleaseCount.settled(9_000_000_000L, 5, 8, 64, 4));
    assertEquals(308, ReleaseCount.settled(Long.MAX_VALUE, 5, 8, 64, 4));
  }

  @Test
  void aGenerationStoppedBeforeItsFirstTokenReleasedItsPrompt() {
    assertEquals(20, ReleaseCount.settled(0, 5, 0, 64, 4));
    assertEquals(20, ReleaseCount.implied(5, 0, 4));
    assertEquals(276, ReleaseCount.bound(5, 0, 64, 4));
  }

  @Test
  void negativeCountsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> ReleaseCount.settled(0, -1, 8, 64, 4));
    assertThrows(IllegalArgumentException.class, () -> ReleaseCount.bound(5, 8, -1, 4));
  }
}
