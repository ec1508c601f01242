package io.tensafe.kernels.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The lane count the vector loops run on is the one the test run asked for: the build runs the lane
 * tests a second time with {@code -XX:UseAVX=2 -Dtensafe.test.expected-lanes=4}, and this fails if
 * the JVM ignored the flag (the other tests would then prove nothing about four lanes).
 */
class LanesTest {
  @Test
  void vectorsHaveTheExpectedLanes_whenTheRunNamesThem() {
    String expected = System.getProperty("tensafe.test.expected-lanes");
    int lanes = VectorNtt.lanes();
    assertEquals(lanes, FmaLanes.lanes(), "doubles and words have the same lane count");
    if (expected != null) {
      assertEquals(Integer.parseInt(expected), lanes);
    } else {
      assertEquals(true, lanes == 4 || lanes == 8, "lanes: " + lanes);
    }
  }
}
