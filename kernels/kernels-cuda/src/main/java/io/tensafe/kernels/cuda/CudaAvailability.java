package io.tensafe.kernels.cuda;

/**
 * Whether this process can use a CUDA GPU, and if not, why. Obtain it from {@link CudaProbe}.
 *
 * <p>Invariant: a value of this type never means "maybe": either a device answered the driver API
 * or there is a one-line reason a person can act on.
 */
public sealed interface CudaAvailability {

  /** True when at least one CUDA device answered. */
  boolean available();

  /** A one-line description for logs and health checks. */
  String describe();

  /**
   * A device the driver reported.
   *
   * @param deviceCount devices visible to the driver, at least 1
   * @param deviceName name of device 0
   * @param computeCapability "major.minor" of device 0, e.g. "9.0"
   * @param driverVersion CUDA driver API version as the driver encodes it (1000·major + 10·minor)
   */
  record Available(int deviceCount, String deviceName, String computeCapability, int driverVersion)
      implements CudaAvailability {
    @Override
    public boolean available() {
      return true;
    }

    @Override
    public String describe() {
      return "CUDA available: "
          + deviceName
          + " (sm "
          + computeCapability
          + ", driver "
          + driverVersion / 1000
          + "."
          + (driverVersion % 1000) / 10
          + ", "
          + deviceCount
          + " device(s))";
    }
  }

  /**
   * No usable device.
   *
   * @param reason why, in words a person can act on; never blank
   */
  record Unavailable(String reason) implements CudaAvailability {
    public Unavailable {
      if (reason == null || reason.isBlank()) {
        throw new IllegalArgumentException("an unavailable backend needs a reason");
      }
    }

    @Override
    public boolean available() {
      return false;
    }

    @Override
    public String describe() {
      return "CUDA unavailable: " + reason;
    }
  }
}
