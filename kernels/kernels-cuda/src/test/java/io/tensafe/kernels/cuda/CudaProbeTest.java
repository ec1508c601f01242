package io.tensafe.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CudaProbeTest {

  /** A GPU is visible to this machine when the NVIDIA control device exists. */
  private static boolean machineHasNvidiaGpu() {
    return Files.exists(Path.of("/dev/nvidiactl")) && Files.exists(Path.of("/dev/nvidia0"));
  }

  @Test
  void result_onThisMachine_matchesWhetherAGpuIsPresent() {
    CudaAvailability result = CudaProbe.result();
    assertEquals(machineHasNvidiaGpu(), result.available(), result.describe());
    if (result instanceof CudaAvailability.Unavailable unavailable) {
      assertFalse(unavailable.reason().isBlank());
      assertTrue(result.describe().startsWith("CUDA unavailable: "));
    } else {
      assertTrue(result.describe().startsWith("CUDA available: "), result.describe());
    }
  }

  @Test
  void result_calledTwice_isProbedOnce() {
    assertSame(CudaProbe.result(), CudaProbe.result());
  }

  @Test
  void unavailable_blankReason_refused() {
    assertThrows(IllegalArgumentException.class, () -> new CudaAvailability.Unavailable(" "));
  }

  @Test
  void available_describe_decodesDriverVersion() {
    var available = new CudaAvailability.Available(1, "NVIDIA H100", "9.0", 13000);
    assertEquals(
        "CUDA available: NVIDIA H100 (sm 9.0, driver 13.0, 1 device(s))", available.describe());
  }
}
