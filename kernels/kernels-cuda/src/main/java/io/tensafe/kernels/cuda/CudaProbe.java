package io.tensafe.kernels.cuda;

import jcuda.CudaException;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.JCudaDriver;

/**
 * Probes the CUDA driver once per process, through the JCuda driver API only.
 *
 * <p>Without a GPU, loading JCuda's driver binding fails with {@link UnsatisfiedLinkError} (an
 * {@link Error}, not an exception) because {@code libcuda.so.1} is absent; the probe turns that,
 * and every driver error, into {@link CudaAvailability.Unavailable} with the reason. Native code is
 * touched only when {@link #result()} is first called.
 */
public final class CudaProbe {
  private CudaProbe() {}

  /** The probe's result, computed on first call and cached for the life of the process. */
  public static CudaAvailability result() {
    return Holder.RESULT;
  }

  private static final class Holder {
    static final CudaAvailability RESULT = probe();
  }

  static CudaAvailability probe() {
    try {
      JCudaDriver.setExceptionsEnabled(true);
      JCudaDriver.cuInit(0);
      int[] count = new int[1];
      JCudaDriver.cuDeviceGetCount(count);
      if (count[0] == 0) {
        return new CudaAvailability.Unavailable("the CUDA driver loaded but reports no device");
      }
      CUdevice device = new CUdevice();
      JCudaDriver.cuDeviceGet(device, 0);
      byte[] name = new byte[256];
      JCudaDriver.cuDeviceGetName(name, name.length, device);
      int[] major = new int[1];
      int[] minor = new int[1];
      JCudaDriver.cuDeviceGetAttribute(
          major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
      JCudaDriver.cuDeviceGetAttribute(
          minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
      int[] driver = new int[1];
      JCudaDriver.cuDriverGetVersion(driver);
      return new CudaAvailability.Available(
          count[0], cString(name), major[0] + "." + minor[0], driver[0]);
    } catch (LinkageError e) {
      return new CudaAvailability.Unavailable(
          "no CUDA driver library (libcuda.so.1) could be loaded: " + firstLine(e));
    } catch (CudaException e) {
      return new CudaAvailability.Unavailable("the CUDA driver refused to start: " + firstLine(e));
    }
  }

  private static String cString(byte[] bytes) {
    int end = 0;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, 0, end, java.nio.charset.StandardCharsets.US_ASCII);
  }

  private static String firstLine(Throwable t) {
    String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
