package io.tensafe.node.health;

import io.tensafe.kernels.cuda.CudaAvailability;

/**
 * Which homomorphic-encryption backend this node runs, decided once at start.
 *
 * @param backend "cpu" or "cuda"
 * @param cuda what the CUDA probe found, kept for health reports
 */
public record HeBackendChoice(String backend, CudaAvailability cuda) {

  /** The backend values {@code tensafe.node.backend} accepts. */
  public enum Requested {
    AUTO,
    CPU,
    CUDA;

    /** Parses a configuration value case-insensitively, naming the accepted values on failure. */
    public static Requested parse(String value) {
      for (Requested r : values()) {
        if (r.name().equalsIgnoreCase(value.strip())) {
          return r;
        }
      }
      throw new IllegalArgumentException(
          "tensafe.node.backend must be one of auto, cpu, cuda; was '" + value + "'");
    }
  }

  /**
   * Decides the backend. An explicit {@code cuda} request that the machine cannot serve is an
   * error, never a silent fall back to the CPU.
   */
  public static HeBackendChoice decide(Requested requested, CudaAvailability cuda) {
    return switch (requested) {
      case CPU -> new HeBackendChoice("cpu", cuda);
      case CUDA -> {
        if (!cuda.available()) {
          throw new IllegalStateException(
              "tensafe.node.backend=cuda but "
                  + cuda.describe()
                  + "; use auto or cpu on this machine");
        }
        yield new HeBackendChoice("cuda", cuda);
      }
      case AUTO -> new HeBackendChoice(cuda.available() ? "cuda" : "cpu", cuda);
    };
  }
}
