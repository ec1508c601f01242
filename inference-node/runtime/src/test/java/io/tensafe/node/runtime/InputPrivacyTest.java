package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InputPrivacyTest {
  @Test
  void clip_scalesLongInputsToTheNorm_andAddsNothing() {
    InputPrivacy p = new InputPrivacy(2.0, 0.5);
    double[] x = {300, 400};
    p.clip(x);
    assertArrayEquals(new double[] {1.2, 1.6}, x, 1e-12);
  }

  @Test
  void smallInputs_areNotScaledUp() {
    InputPrivacy p = new InputPrivacy(10.0, 1e-9);
    double[] x = {0.3, 0.4};
    p.clip(x);
    assertArrayEquals(new double[] {0.3, 0.4}, x, 0);
  }

  @Test
  void outputSigma_isZTimesTwoLTimesC() {
    assertEquals(3 * 2 * 0.25 * 2.0, new InputPrivacy(2.0, 3).outputSigma(0.25), 1e-12);
    assertTrue(new InputPrivacy(1, 0.3).noised());
  }

  @Test
  void noNoise_isAPolicy_thatNoisesNothing() {
    InputPrivacy none = new InputPrivacy(1, 0);
    assertFalse(none.noised());
    assertEquals(0, none.outputSigma(8), 0);
  }

  @Test
  void outOfRangePolicies_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> new InputPrivacy(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new InputPrivacy(1, Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> new InputPrivacy(1, -1));
  }
}
