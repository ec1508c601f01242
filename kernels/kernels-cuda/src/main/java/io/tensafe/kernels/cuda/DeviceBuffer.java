package io.tensafe.kernels.cuda;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * A device allocation that grows on demand and is reused across calls (plain {@code cuMemAlloc},
 * never managed memory). Not thread-safe: each belongs to one {@link Lane}. Capacity in bytes.
 */
final class DeviceBuffer {
  private CUdeviceptr pointer;
  private long capacity;

  /** The buffer, at least {@code bytes} long; earlier contents are lost when it grows. */
  CUdeviceptr ensure(long bytes) {
    if (bytes > capacity) {
      free();
      long size = Math.max(bytes, Math.min(2 * capacity, bytes + (64L << 20)));
      pointer = new CUdeviceptr();
      JCudaDriver.cuMemAlloc(pointer, size);
      capacity = size;
    }
    return pointer;
  }

  void free() {
    if (pointer != null) {
      JCudaDriver.cuMemFree(pointer);
      pointer = null;
      capacity = 0;
    }
  }
}
