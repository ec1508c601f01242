package io.tensafe.tgsp.dp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ZcdpBudgetTest {
  @Test
  void rhoLimit_isTheLargestRhoWithinEpsilon() {
    double limit = ZcdpBudget.rhoLimit(100, 1e-5);
    assertTrue(ZcdpBudget.epsilon(limit, 1e-5) <= 100);
    assertTrue(ZcdpBudget.epsilon(limit * 1.000001, 1e-5) > 100);
    // The figure: ρ ≈ 52.7 at ε = 100, δ = 1e-5.
    assertEquals(52.7, limit, 0.1);
  }

  @Test
  void tokensPerPeriod_dividesTheLimitByTheReleasesOfAToken() {
    double limit = ZcdpBudget.rhoLimit(10, 1e-5);
    long tokens = ZcdpBudget.tokensPerPeriod(50, 10, 1e-5, 8).getAsLong();
    assertEquals((long) Math.floor(limit / (8 / (2.0 * 50 * 50))), tokens);
    assertTrue(ZcdpBudget.tokensPerPeriod(0, 10, 1e-5, 8).isEmpty(), "no noise: no limit");
  }

  @Test
  void badArguments_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> ZcdpBudget.rhoPerRelease(-1));
    assertThrows(IllegalArgumentException.class, () -> ZcdpBudget.epsilon(1, 0));
    assertThrows(IllegalArgumentException.class, () -> ZcdpBudget.tokensPerPeriod(1, 1, 1e-5, 0));
  }
}
