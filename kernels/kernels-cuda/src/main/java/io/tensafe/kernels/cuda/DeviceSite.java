package io.tensafe.kernels.cuda;

import io.tensafe.kernels.backend.HostedLoraWeights;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * A hosted HE-LoRA site on the device: key, plaintexts and extraction weights (with Shoup
 * companions) in one allocation, and the output positions in another. Uploaded once per {@link
 * HostedLoraWeights} and freed when those become unreachable or the backend closes.
 */
record DeviceSite(
    CUdeviceptr base,
    CUdeviceptr positions,
    CUdeviceptr key,
    CUdeviceptr keyShoup,
    CUdeviceptr plaintexts,
    CUdeviceptr plaintextsShoup,
    CUdeviceptr weights,
    CUdeviceptr weightsShoup) {

  static DeviceSite upload(HostedLoraWeights site) {
    HostedLoraWeights.Upload u = site.upload();
    int n = u.secretKey().length;
    int p = u.plaintexts().length;
    int b = site.extractsOutputs() ? u.positions().length : 0;
    long[] all = new long[(2 + 2 * p + 2 * b) * n];
    System.arraycopy(u.secretKey(), 0, all, 0, n);
    System.arraycopy(u.secretKeyShoup(), 0, all, n, n);
    for (int i = 0; i < p; i++) {
      System.arraycopy(u.plaintexts()[i], 0, all, (2 + i) * n, n);
      System.arraycopy(u.plaintextsShoup()[i], 0, all, (2 + p + i) * n, n);
    }
    for (int i = 0; i < b; i++) {
      System.arraycopy(u.extractionWeights()[i], 0, all, (2 + 2 * p + i) * n, n);
      System.arraycopy(u.extractionWeightsShoup()[i], 0, all, (2 + 2 * p + b + i) * n, n);
    }
    CUdeviceptr base = new CUdeviceptr();
    JCudaDriver.cuMemAlloc(base, (long) all.length * Long.BYTES);
    JCudaDriver.cuMemcpyHtoD(base, Pointer.to(all), (long) all.length * Long.BYTES);
    CUdeviceptr positions = new CUdeviceptr();
    JCudaDriver.cuMemAlloc(positions, (long) u.positions().length * Integer.BYTES);
    JCudaDriver.cuMemcpyHtoD(
        positions, Pointer.to(u.positions()), (long) u.positions().length * Integer.BYTES);
    long row = (long) n * Long.BYTES;
    return new DeviceSite(
        base,
        positions,
        base,
        base.withByteOffset(row),
        base.withByteOffset(2 * row),
        base.withByteOffset((2L + p) * row),
        base.withByteOffset((2L + 2 * p) * row),
        base.withByteOffset((2L + 2 * p + b) * row));
  }

  void free() {
    JCudaDriver.cuMemFree(base);
    JCudaDriver.cuMemFree(positions);
  }
}
