package io.tensafe.marketplace.privacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Gaussian mechanism and the accountant against published values and exact results: the normal
 * distribution's tables, Balle and Wang's analytic calibration, the classic calibration, and the
 * exact privacy of composed Gaussians (μ-GDP, Dong, Roth and Su 2019, Corollaries 2.13 and 3.3).
 */
class PrivacyAccountingTest {

  @ParameterizedTest(name = "Φ({0}) = {1}")
  @CsvSource({
    "0, 0.5",
    "1.96, 0.9750021048517795",
    "-1, 0.15865525393145707",
    "-5, 2.866515718791946e-07",
    "-10, 7.619853024160593e-24",
    "-20, 2.7536241186063314e-89",
    "3.5, 0.9997673709209645"
  })
  void normalCdf_matchesTables(double x, double expected) {
    assertEquals(expected, Normal.cdf(x), Math.abs(expected) * 1e-11);
  }

  @Test
  void analyticSigma_epsilon1Delta1e5_isBalleWangs3_73() {
    double sigma = GaussianMechanism.analyticSigma(1, 1e-5, 1);
    assertEquals(3.73, sigma, 0.005);
    assertTrue(GaussianMechanism.delta(sigma, 1, 1) <= 1e-5);
    assertTrue(GaussianMechanism.delta(sigma * 0.999, 1, 1) > 1e-5);
    // Linear in the sensitivity.
    assertEquals(sigma * 3, GaussianMechanism.analyticSigma(1, 1e-5, 3), 1e-6);
  }

  @Test
  void classicSigma_isTheTextbookFormula_andLooserThanAnalytic() {
    assertEquals(4.844805262605389, GaussianMechanism.classicSigma(1, 1e-5, 1), 1e-12);
    for (double eps : new double[] {0.1, 0.5, 0.9}) {
      assertTrue(
          GaussianMechanism.analyticSigma(eps, 1e-6, 1)
              < GaussianMechanism.classicSigma(eps, 1e-6, 1));
    }
  }

  @Test
  void delta_oneGaussianOfUnitNoise_isTheExactGdpCurve() {
    // 1-GDP at ε = 1: Φ(-0.5) − e·Φ(-1.5).
    assertEquals(0.1269367375066439, GaussianMechanism.delta(1, 1, 1), 1e-13);
  }

  @Test
  void rdp_hundredReleasesAtMultiplier10_isSoundAndTight() {
    // 100 releases at z = 10 are exactly 1-GDP: the exact ε at δ = 1e-5 is 4.3772.
    RdpAccountant accountant = RdpAccountant.empty().compose(10, 100);
    assertEquals(0.5, accountant.rho(), 1e-15);
    double exact = 4.3771780956812245;
    double rdp = accountant.epsilon(1e-5);
    assertTrue(rdp >= exact, "RDP must never claim less than the exact ε: " + rdp);
    assertTrue(rdp <= exact * 1.15, "RDP should be within 15% of exact: " + rdp);
    assertTrue(accountant.epsilonMironov(1e-5) >= rdp);
    assertEquals(5.298525912188081, accountant.epsilonZcdp(1e-5), 1e-12);
    assertTrue(rdp <= accountant.epsilonZcdp(1e-5));
  }

  @Test
  void rdp_composesAdditively_andMoreReleasesCostMore() {
    RdpAccountant a = RdpAccountant.empty().compose(2, 3).compose(4, 10);
    assertEquals(3 / 8.0 + 10 / 32.0, a.rho(), 1e-15);
    assertTrue(a.compose(2, 1).epsilon(1e-6) > a.epsilon(1e-6));
    assertEquals(0, RdpAccountant.empty().epsilon(1e-6), 0);
  }

  @Test
  void addNoise_hasTheRequestedSpread() {
    double[] values = new double[200_000];
    GaussianMechanism.addNoise(values, 2, new SecureRandom());
    double mean = 0;
    for (double v : values) {
      mean += v;
    }
    mean /= values.length;
    double variance = 0;
    for (double v : values) {
      variance += (v - mean) * (v - mean);
    }
    variance /= values.length - 1;
    assertEquals(0, mean, 0.03);
    assertEquals(2, Math.sqrt(variance), 0.02);
  }

  @Test
  void outOfRangeParameters_refused() {
    assertThrows(IllegalArgumentException.class, () -> GaussianMechanism.analyticSigma(0, 1e-5, 1));
    assertThrows(IllegalArgumentException.class, () -> GaussianMechanism.analyticSigma(1, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> GaussianMechanism.delta(-1, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> RdpAccountant.empty().compose(0, 1));
    assertThrows(IllegalArgumentException.class, () -> RdpAccountant.empty().epsilon(0));
  }

  /**
   * A budget spent to its limit is (ε, δ)-DP for the policy's ε and δ at the true sensitivity of a
   * release: a site's output has sensitivity Δ = 2LC and is noised at σ = zΔ in both modes (ADR
   * 0035). k Gaussian releases with noise σ compose exactly to one with σ/√k (μ-GDP), whose δ at ε
   * Balle and Wang give exactly.
   */
  @ParameterizedTest(name = "z = {0}, ε = {1}, δ = {2}")
  @CsvSource({"2, 10, 1e-5", "50, 3, 1e-6", "16, 1, 1e-5", "200, 0.5, 1e-7"})
  void aBudgetSpentToItsLimit_isDifferentiallyPrivateAtTheTrueSensitivity(
      double z, double epsilon, double delta) {
    java.math.BigDecimal limit = BudgetMaths.rhoLimit(epsilon, delta);
    long releases =
        limit
            .divide(BudgetMaths.cost(java.math.BigDecimal.valueOf(z), 1), BudgetMaths.MATH)
            .longValue();
    assertTrue(releases >= 1, "at least one release fits");
    double sensitivity = 1; // Δ = 2LC, in units of Δ: σ = z·Δ
    double composedSigma = z / Math.sqrt(releases);
    double exactDelta = GaussianMechanism.delta(composedSigma, epsilon, sensitivity);
    assertTrue(exactDelta <= delta, "δ at the reported ε: " + exactDelta + " > " + delta);
  }
}
