package io.tensafe.kernels.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ModularMultiplyBenchmarkTest {

  @Test
  void benchmarkList_generatedByJmh_containsEveryBenchmark() throws IOException {
    try (InputStream list = getClass().getResourceAsStream("/META-INF/BenchmarkList")) {
      assertNotNull(list, "JMH annotation processing did not run");
      String text = new String(list.readAllBytes(), StandardCharsets.UTF_8);
      for (String method : new String[] {"barrett", "shoup", "bigIntegerBaseline"}) {
        assertTrue(
            text.contains("ModularMultiplyBenchmark_" + method + "_jmhTest"), method + " missing");
      }
    }
  }

  @Test
  void variants_sameInputs_computeTheSameProducts() {
    ModularMultiplyBenchmark benchmark = new ModularMultiplyBenchmark();
    benchmark.primeBits = 60;
    benchmark.setUp();
    long[] barrett = benchmark.barrett().clone();
    long[] shoup = benchmark.shoup().clone();
    long[] reference = benchmark.bigIntegerBaseline().clone();
    assertArrayEquals(reference, barrett);
    assertArrayEquals(reference, shoup);
  }
}
