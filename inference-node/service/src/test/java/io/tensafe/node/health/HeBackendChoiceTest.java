package io.tensafe.node.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.cuda.CudaAvailability;
import org.junit.jupiter.api.Test;

class HeBackendChoiceTest {
  private static final CudaAvailability NO_GPU = new CudaAvailability.Unavailable("no libcuda");
  private static final CudaAvailability GPU =
      new CudaAvailability.Available(1, "NVIDIA H100", "9.0", 13000);

  @Test
  void decide_autoWithoutGpu_fallsBackToCpu() {
    assertEquals("cpu", HeBackendChoice.decide(HeBackendChoice.Requested.AUTO, NO_GPU).backend());
  }

  @Test
  void decide_autoWithGpu_choosesCuda() {
    assertEquals("cuda", HeBackendChoice.decide(HeBackendChoice.Requested.AUTO, GPU).backend());
  }

  @Test
  void decide_explicitCudaWithoutGpu_failsWithReason() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> HeBackendChoice.decide(HeBackendChoice.Requested.CUDA, NO_GPU));
    assertTrue(e.getMessage().contains("no libcuda"), e.getMessage());
  }

  @Test
  void decide_explicitCpuWithGpu_staysOnCpu() {
    assertEquals("cpu", HeBackendChoice.decide(HeBackendChoice.Requested.CPU, GPU).backend());
  }

  @Test
  void parse_unknownValue_namesAcceptedValues() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> HeBackendChoice.Requested.parse("gpu"));
    assertTrue(e.getMessage().contains("auto, cpu, cuda"), e.getMessage());
    assertEquals(HeBackendChoice.Requested.CUDA, HeBackendChoice.Requested.parse(" Cuda "));
  }
}
