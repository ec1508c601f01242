package io.tensafe.kernels.helora;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HostedSlotOperatorTest {

  @ParameterizedTest(name = "d={0}, r={1}")
  @CsvSource({
    "896,8", "896,16", "896,32", "1536,8", "1536,16", "1536,32", "2048,8", "2048,16", "2048,32"
  })
  void apply_realisticData_matchesDoublePrecisionWithin1e4(int d, int r) {
    LoraData.assertPreciseOnRealisticData(
        new HostedSlotOperator(HostedSlotOperator.parametersFor(d), new SecureRandom()), d, r, 2);
  }

  @Test
  void parametersFor_needsTwiceTheDimensionInRingDegree_andAtLeastN4096() {
    assertEquals(12, HostedSlotOperator.parametersFor(64).logN());
    assertEquals(12, HostedSlotOperator.parametersFor(1024).logN());
    assertEquals(12, HostedSlotOperator.parametersFor(2048).logN());
    assertEquals(13, HostedSlotOperator.parametersFor(2049).logN());
    assertEquals(60, HostedSlotOperator.parametersFor(896).moduli().getFirst().bitLength());
  }

  @Test
  void prepare_dimensionOverSlots_refused() {
    HostedSlotOperator operator =
        new HostedSlotOperator(HostedSlotOperator.parametersFor(64), new SecureRandom());
    assertThrows(IllegalArgumentException.class, () -> operator.prepare(new double[1][4096]));
  }
}
