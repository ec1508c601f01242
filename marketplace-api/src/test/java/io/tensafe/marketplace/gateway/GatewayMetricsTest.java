package io.tensafe.marketplace.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GatewayMetricsTest {
  @Test
  void figures_countOutcomes_errorRateAndTheP99Bucket() {
    GatewayMetrics m = new GatewayMetrics(new SimpleMeterRegistry());
    for (int i = 0; i < 6; i++) {
      m.ended(RequestOutcome.COMPLETED, 10);
    }
    m.ended(RequestOutcome.NODE_FAILED, 2);
    m.refused(503);
    m.refused(429);
    m.ended(RequestOutcome.CLIENT_GONE, 1);
    for (int i = 0; i < 99; i++) {
      m.firstToken(3_000_000); // 3 ms
    }
    m.firstToken(900_000_000); // one slow stream: 900 ms
    GatewayMetrics.Figures f = m.figures();
    assertEquals(
        Map.of(
            "completed",
            6L,
            "node_failed",
            1L,
            "refused_503",
            1L,
            "refused_429",
            1L,
            "client_gone",
            1L),
        f.requestsByOutcome());
    assertEquals(63, f.completionTokens());
    assertEquals(100, f.streams());
    assertEquals(0.2, f.errorRate(), 1e-12); // node_failed and refused_503 of 10
    // 99 of 100 streams took 3 ms: the p99 bucket bound is at least 3 ms and far below 900 ms.
    assertTrue(f.firstTokenP99Millis() >= 3 && f.firstTokenP99Millis() < 10, "" + f);
  }

  @Test
  void figures_withNothingYet_areZeroAndNaN() {
    GatewayMetrics.Figures f = new GatewayMetrics(new SimpleMeterRegistry()).figures();
    assertEquals(0, f.errorRate());
    assertTrue(Double.isNaN(f.firstTokenP99Millis()));
  }
}
