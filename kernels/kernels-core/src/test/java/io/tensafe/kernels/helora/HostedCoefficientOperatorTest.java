package io.tensafe.kernels.helora;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.params.Parameters;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HostedCoefficientOperatorTest {
  private static final int TOKENS = 3;

  @ParameterizedTest(name = "d={0}, r={1}")
  @CsvSource({
    "896,8", "896,16", "896,32", "1536,8", "1536,16", "1536,32", "2048,8", "2048,16", "2048,32"
  })
  void apply_realisticData_matchesDoublePrecisionWithin1e4(int d, int r) {
    HeLoraOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(d), new SecureRandom());
    double[][] a = LoraData.loraA(r, d, 31L * d + r);
    double[][] x = LoraData.activations(TOKENS, d, 17L * d + r);
    HeLoraResult result = operator.apply(operator.prepare(a), x);
    for (int t = 0; t < TOKENS; t++) {
      double error = LoraData.maxRelativeError(LoraData.multiply(a, x[t]), result.outputs()[t]);
      assertTrue(error <= 1e-4, "token " + t + ": max relative error " + error);
    }
    CoefficientLayout layout = new CoefficientLayout(d, r, 2048);
    assertEquals(TOKENS, result.counts().encryptions());
    assertEquals((long) TOKENS * layout.plaintextCount(), result.counts().plaintextProducts());
    assertEquals(result.counts().plaintextProducts(), result.counts().decryptions());
  }

  @Test
  void apply_zeroInputAndZeroA_returnZeros() {
    HeLoraOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(64), new SecureRandom());
    HeLoraResult zeroX =
        operator.apply(operator.prepare(LoraData.loraA(4, 64, 1)), new double[1][64]);
    HeLoraResult zeroA =
        operator.apply(operator.prepare(new double[4][64]), LoraData.activations(1, 64, 2));
    // The encryption's error alone: on the 50-bit hosted prime (ADR 0033, four times the 54-bit
    // prime's error) it reached 1.02e-6 in one CI run, so the bound is 1e-5, far below any output
    // a nonzero A and x give (order 1).
    for (int i = 0; i < 4; i++) {
      assertEquals(0, zeroX.outputs()[0][i], 1e-5);
      assertEquals(0, zeroA.outputs()[0][i], 1e-5);
    }
  }

  @Test
  void apply_smallDimension_usesInverseNttInsteadOfExtraction() {
    HeLoraOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(64), new SecureRandom());
    double[][] a = LoraData.loraA(40, 64, 3); // 32 rows per plaintext: an inverse NTT is cheaper
    double[][] x = LoraData.activations(2, 64, 4);
    HeLoraResult result = operator.apply(operator.prepare(a), x);
    assertEquals(0, result.counts().coefficientExtractions());
    assertEquals(4, result.counts().inverseNtts()); // 2 tokens × 2 plaintexts
    for (int t = 0; t < 2; t++) {
      assertTrue(
          LoraData.maxRelativeError(LoraData.multiply(a, x[t]), result.outputs()[t]) <= 1e-4);
    }
  }

  @Test
  void parametersFor_dimensions_pickSmallestSecureRing() {
    Parameters small = HostedCoefficientOperator.parametersFor(2048);
    assertEquals(11, small.logN());
    assertTrue(small.isSecure128());
    Parameters large = HostedCoefficientOperator.parametersFor(3584);
    assertEquals(12, large.logN());
    assertTrue(large.isSecure128());
  }

  @Test
  void prepareAndApply_badInput_refusedWithReason() {
    HostedCoefficientOperator operator =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(8), new SecureRandom());
    assertThrows(IllegalArgumentException.class, () -> operator.prepare(new double[0][]));
    assertThrows(
        IllegalArgumentException.class, () -> operator.prepare(new double[][] {{1, 2}, {1}}));
    assertThrows(
        IllegalArgumentException.class, () -> operator.prepare(new double[][] {{Double.NaN, 1}}));
    assertThrows(IllegalArgumentException.class, () -> operator.prepare(new double[1][4096]));
    PreparedSite site = operator.prepare(new double[][] {{1, 2}});
    assertThrows(IllegalArgumentException.class, () -> operator.apply(site, new double[][] {{1}}));
    HostedCoefficientOperator other =
        new HostedCoefficientOperator(
            HostedCoefficientOperator.parametersFor(8), new SecureRandom());
    assertThrows(IllegalArgumentException.class, () -> other.apply(site, new double[][] {{1, 2}}));
  }
}
