package io.tensafe.kernels.cuda;

import io.tensafe.kernels.ring.NegacyclicNtt;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * One NTT table set on the device: forward and inverse twiddles with their Shoup companions, in one
 * allocation of 4n words, exactly {@link NegacyclicNtt}'s tables. Immutable once uploaded; shared
 * by every lane.
 */
record DeviceTables(
    CUdeviceptr base,
    int degree,
    long modulus,
    long inverseDegree,
    long inverseDegreeShoup,
    CUdeviceptr forward,
    CUdeviceptr forwardShoup,
    CUdeviceptr inverse,
    CUdeviceptr inverseShoup) {

  static DeviceTables upload(NegacyclicNtt ntt) {
    int n = ntt.degree();
    long[] all = new long[4 * n];
    System.arraycopy(ntt.forwardTwiddles(), 0, all, 0, n);
    System.arraycopy(ntt.forwardTwiddlesShoup(), 0, all, n, n);
    System.arraycopy(ntt.inverseTwiddles(), 0, all, 2 * n, n);
    System.arraycopy(ntt.inverseTwiddlesShoup(), 0, all, 3 * n, n);
    CUdeviceptr base = new CUdeviceptr();
    JCudaDriver.cuMemAlloc(base, (long) all.length * Long.BYTES);
    JCudaDriver.cuMemcpyHtoD(base, Pointer.to(all), (long) all.length * Long.BYTES);
    long words = (long) n * Long.BYTES;
    long inverseDegree = ntt.inverseDegree();
    return new DeviceTables(
        base,
        n,
        ntt.modulus().value(),
        inverseDegree,
        ntt.modulus().shoupPrecompute(inverseDegree),
        base,
        base.withByteOffset(words),
        base.withByteOffset(2 * words),
        base.withByteOffset(3 * words));
  }

  void free() {
    JCudaDriver.cuMemFree(base);
  }
}
