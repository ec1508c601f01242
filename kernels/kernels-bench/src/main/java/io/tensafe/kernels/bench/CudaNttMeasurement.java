package io.tensafe.kernels.bench;

import io.tensafe.kernels.backend.LimbBatch;
import io.tensafe.kernels.cuda.CudaBackend;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.util.Arrays;
import java.util.Collections;
import java.util.SplittableRandom;
import jcuda.Pointer;
import jcuda.driver.CUevent;
import jcuda.driver.JCudaDriver;

/**
 * Throughput of the batched NTT kernels, for {@code ./tensafe bench ntt --backend cuda}. Measures
 * two things in one run: device-resident throughput (data uploaded once, {@code rounds} forward
 * then {@code rounds} inverse launches timed with CUDA events, as a node's pipeline runs them;
 * through {@link CudaBackend#withResidentNtt}) and end-to-end throughput of {@link
 * CudaBackend#forwardNttInPlace} including both PCIe copies. It checks its own result: after equal
 * numbers of forward and inverse transforms the device data must equal what was uploaded, and one
 * end-to-end transform must equal the CPU reference.
 */
final class CudaNttMeasurement {
  private CudaNttMeasurement() {}

  /**
   * Limb-NTTs per second.
   *
   * @param forwardPerSecond forward NTTs per second, device-resident
   * @param inversePerSecond inverse NTTs per second, device-resident
   * @param forwardWithTransfersPerSecond forward NTTs per second through the SPI, copies included
   */
  record Result(
      double forwardPerSecond, double inversePerSecond, double forwardWithTransfersPerSecond) {}

  /**
   * Runs the measurement for {@code batch} limbs under {@code ntt}'s prime.
   *
   * @throws IllegalStateException if the GPU's transforms differ from the CPU reference
   */
  static Result measure(CudaBackend backend, NegacyclicNtt ntt, int batch, int rounds) {
    int n = ntt.degree();
    long words = (long) batch * n;
    long[] original = new SplittableRandom(batch).longs(words, 0, ntt.modulus().value()).toArray();
    float[] millis = new float[2];
    backend.withResidentNtt(
        ntt,
        batch,
        resident -> {
          JCudaDriver.cuMemcpyHtoD(resident.data(), Pointer.to(original), words * Long.BYTES);
          CUevent[] events = {new CUevent(), new CUevent(), new CUevent()};
          for (CUevent event : events) {
            JCudaDriver.cuEventCreate(event, 0);
          }
          resident.forward(); // warm-up: one round trip
          resident.inverse();
          JCudaDriver.cuEventRecord(events[0], resident.stream());
          for (int i = 0; i < rounds; i++) {
            resident.forward();
          }
          JCudaDriver.cuEventRecord(events[1], resident.stream());
          for (int i = 0; i < rounds; i++) {
            resident.inverse();
          }
          JCudaDriver.cuEventRecord(events[2], resident.stream());
          JCudaDriver.cuEventSynchronize(events[2]);
          float[] elapsed = new float[1];
          for (int k = 0; k < 2; k++) {
            JCudaDriver.cuEventElapsedTime(elapsed, events[k], events[k + 1]);
            millis[k] = elapsed[0];
          }
          for (CUevent event : events) {
            JCudaDriver.cuEventDestroy(event);
          }
          long[] back = new long[original.length];
          JCudaDriver.cuMemcpyDtoH(Pointer.to(back), resident.data(), words * Long.BYTES);
          if (!Arrays.equals(original, back)) {
            throw new IllegalStateException(
                "GPU NTT round trip did not restore the data: the kernels are wrong");
          }
        });
    long[][] limbs = new long[batch][];
    for (int k = 0; k < batch; k++) {
      limbs[k] = Arrays.copyOfRange(original, k * n, (k + 1) * n);
    }
    LimbBatch onHost = new LimbBatch(Collections.nCopies(batch, ntt), limbs);
    backend.forwardNttInPlace(onHost);
    long[] expected = Arrays.copyOfRange(original, 0, n);
    ntt.forwardInPlace(expected);
    if (!Arrays.equals(expected, limbs[0])) {
      throw new IllegalStateException("GPU forward NTT differs from the CPU reference");
    }
    int calls = Math.max(3, Math.min(50, rounds / 4));
    long begin = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      backend.forwardNttInPlace(onHost);
    }
    double seconds = (System.nanoTime() - begin) / 1e9;
    return new Result(
        rounds * (double) batch / (millis[0] / 1000),
        rounds * (double) batch / (millis[1] / 1000),
        calls * (double) batch / seconds);
  }
}
