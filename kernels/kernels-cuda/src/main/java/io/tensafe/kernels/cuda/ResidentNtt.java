package io.tensafe.kernels.cuda;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;

/**
 * A device buffer of {@code limbs} limbs under one ring, on a lane the caller holds for the
 * duration of {@link CudaBackend#withResidentNtt}: for measurements that keep data on the device
 * (kernels-bench's batched NTT benchmark). The caller fills and reads {@link #data()} itself with
 * driver copies on {@link #stream()}; the transforms run on the same stream. Valid only inside that
 * call; not thread-safe.
 */
public final class ResidentNtt {
  private final Kernels kernels;
  private final DeviceTables tables;
  private final CUdeviceptr data;
  private final CUstream stream;
  private final int limbs;

  ResidentNtt(Kernels kernels, DeviceTables tables, CUdeviceptr data, CUstream stream, int limbs) {
    this.kernels = kernels;
    this.tables = tables;
    this.data = data;
    this.stream = stream;
    this.limbs = limbs;
  }

  /** The limbs, one after another: {@code limbs * degree} words, at least. */
  public CUdeviceptr data() {
    return data;
  }

  /** The lane's stream; launches and copies on it run in order. */
  public CUstream stream() {
    return stream;
  }

  /** Queues a forward NTT of every limb, in place (asynchronous). */
  public void forward() {
    kernels.forward(data, tables, limbs, stream);
  }

  /** Queues an inverse NTT of every limb, in place (asynchronous). */
  public void inverse() {
    kernels.inverse(data, tables, limbs, stream);
  }
}
