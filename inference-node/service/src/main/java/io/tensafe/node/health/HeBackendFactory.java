package io.tensafe.node.health;

import io.quarkus.logging.Log;
import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.kernels.backend.HeBackend;
import java.util.function.Supplier;

/**
 * Turns the node's {@link HeBackendChoice} into a running backend. Opening CUDA can still fail
 * after the probe found a GPU (for instance a jar built without nvcc has no kernels): with {@code
 * auto} the node then runs on the CPU and logs why; with an explicit {@code cuda} it refuses to
 * start. Never a silent fallback.
 */
final class HeBackendFactory {
  private HeBackendFactory() {}

  static HeBackend create(
      HeBackendChoice choice, HeBackendChoice.Requested requested, Supplier<HeBackend> openCuda) {
    if (choice.backend().equals("cpu")) {
      return new CpuBackend();
    }
    try {
      HeBackend cuda = openCuda.get();
      Log.infof("HE backend: cuda (%s)", cuda);
      return cuda;
    } catch (RuntimeException e) {
      if (requested == HeBackendChoice.Requested.CUDA) {
        throw new IllegalStateException(
            "tensafe.node.backend=cuda but the CUDA backend cannot start: " + e.getMessage(), e);
      }
      Log.warnf(
          "HE backend: cpu, falling back because the CUDA backend cannot start: %s",
          e.getMessage());
      return new CpuBackend();
    }
  }
}
