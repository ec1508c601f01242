package io.tensafe.node.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.cuda.CudaAvailability;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class HeBackendFactoryTest {
  private static final CudaAvailability GPU =
      new CudaAvailability.Available(1, "NVIDIA H100", "9.0", 13000);
  private static final Supplier<HeBackend> NO_KERNELS =
      () -> {
        throw new IllegalStateException(
            "CUDA unavailable: nvcc was not found when this jar was built");
      };

  @Test
  void create_cpuChoice_neverOpensCuda() {
    HeBackendChoice cpu = new HeBackendChoice("cpu", GPU);
    HeBackend backend =
        HeBackendFactory.create(
            cpu,
            HeBackendChoice.Requested.CPU,
            () -> {
              throw new AssertionError("must not open CUDA");
            });
    assertEquals("cpu", backend.name());
  }

  @Test
  void create_autoAndCudaCannotStart_fallsBackToCpu() {
    HeBackend backend =
        HeBackendFactory.create(
            new HeBackendChoice("cuda", GPU), HeBackendChoice.Requested.AUTO, NO_KERNELS);
    assertEquals("cpu", backend.name());
  }

  @Test
  void create_explicitCudaThatCannotStart_failsNamingTheReason() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                HeBackendFactory.create(
                    new HeBackendChoice("cuda", GPU), HeBackendChoice.Requested.CUDA, NO_KERNELS));
    assertTrue(e.getMessage().contains("nvcc was not found"), e.getMessage());
  }

  @Test
  void create_cudaOpens_returnsIt() {
    HeBackend opened = new CpuBackend();
    assertSame(
        opened,
        HeBackendFactory.create(
            new HeBackendChoice("cuda", GPU), HeBackendChoice.Requested.AUTO, () -> opened));
  }
}
