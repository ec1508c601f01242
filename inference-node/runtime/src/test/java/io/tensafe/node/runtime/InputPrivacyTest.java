package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class InputPrivacyTest {
  @Test
  void release_clipsToTheNorm_thenAddsNoiseOfSigmaTimesC() {
    InputPrivacy p = new InputPrivacy(2.0, 0.5);
    assertEquals(1.0, p.sigma());
    int d = 20_000;
    double[] x = new double[d];
    x[0] = 300; // norm 300, clipped to 2
    p.release(x, new SecureRandom());
    double sum = 0;
    double squares = 0;
    for (int i = 1; i < d; i++) {
      sum += x[i];
      squares += x[i] * x[i];
    }
    double mean = sum / (d - 1);
    double sd = Math.sqrt(squares / (d - 1) - mean * mean);
    assertEquals(0, mean, 0.05);
    assertEquals(1.0, sd, 0.05);
    assertTrue(Math.abs(x[0] - 2.0) < 6, "the clipped coordinate is 2 plus noise, was " + x[0]);
  }

  @Test
  void smallInputs_areNotScaledUp() {
    InputPrivacy p = new InputPrivacy(10.0, 1e-9);
    double[] x = {0.3, 0.4};
    p.release(x, new SecureRandom());
    assertEquals(0.3, x[0], 1e-6);
    assertEquals(0.4, x[1], 1e-6);
  }

  @Test
  void outOfRangePolicies_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> new InputPrivacy(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new InputPrivacy(1, Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> new InputPrivacy(1, -1));
  }
}
