package io.tensafe.kernels.cuda;

import io.tensafe.kernels.backend.LimbBatch;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.util.Collections;
import java.util.SplittableRandom;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.JCudaDriver;

/**
 * Throughput of the batched NTT kernels, for {@code ./tensafe bench ntt --backend cuda}. Measures
 * two things in one run: device-resident throughput (data uploaded once, {@code rounds} forward
 * then {@code rounds} inverse launches timed with CUDA events, as a node's pipeline runs them) and
 * end-to-end throughput of {@link CudaBackend#forwardNttInPlace} including both PCIe copies. It
 * checks its own result: after equal numbers of forward and inverse transforms the device data must
 * equal what was uploaded, and one end-to-end transform must equal the CPU reference.
 */
public final class CudaNttBenchmark {
  private CudaNttBenchmark() {}

  /**
   * Limb-NTTs per second.
   *
   * @param forwardPerSecond forward NTTs per second, device-resident
   * @param inversePerSecond inverse NTTs per second, device-resident
   * @param forwardWithTransfersPerSecond forward NTTs per second through the SPI, copies included
   */
  public record Result(
      double forwardPerSecond, double inversePerSecond, double forwardWithTransfersPerSecond) {}

  /** Runs the measurement for {@code batch} limbs under {@code ntt}'s prime. */
  public static Result measure(CudaBackend backend, NegacyclicNtt ntt, int batch, int rounds) {
    int n = ntt.degree();
    long words = (long) batch * n;
    SplittableRandom random = new SplittableRandom(batch);
    long[] original = random.longs(words, 0, ntt.modulus().value()).toArray();
    double[] millis = new double[2];
    backend.withLane(
        lane -> {
          DeviceTables t = backend.tables(ntt);
          CUdeviceptr data = lane.first.ensure(words * Long.BYTES);
          JCudaDriver.cuMemcpyHtoD(data, Pointer.to(original), words * Long.BYTES);
          CUevent start = new CUevent();
          CUevent middle = new CUevent();
          CUevent stop = new CUevent();
          JCudaDriver.cuEventCreate(start, 0);
          JCudaDriver.cuEventCreate(middle, 0);
          JCudaDriver.cuEventCreate(stop, 0);
          // Warm-up: one round trip.
          backend.kernels().forward(data, t, batch, lane.stream);
          backend.kernels().inverse(data, t, batch, lane.stream);
          JCudaDriver.cuEventRecord(start, lane.stream);
          for (int i = 0; i < rounds; i++) {
            backend.kernels().forward(data, t, batch, lane.stream);
          }
          JCudaDriver.cuEventRecord(middle, lane.stream);
          for (int i = 0; i < rounds; i++) {
            backend.kernels().inverse(data, t, batch, lane.stream);
          }
          JCudaDriver.cuEventRecord(stop, lane.stream);
          JCudaDriver.cuEventSynchronize(stop);
          float[] elapsed = new float[1];
          JCudaDriver.cuEventElapsedTime(elapsed, start, middle);
          millis[0] = elapsed[0];
          JCudaDriver.cuEventElapsedTime(elapsed, middle, stop);
          millis[1] = elapsed[0];
          long[] back = new long[original.length];
          JCudaDriver.cuMemcpyDtoH(Pointer.to(back), data, words * Long.BYTES);
          JCudaDriver.cuEventDestroy(start);
          JCudaDriver.cuEventDestroy(middle);
          JCudaDriver.cuEventDestroy(stop);
          if (!java.util.Arrays.equals(original, back)) {
            throw new IllegalStateException(
                "GPU NTT round trip did not restore the data: the kernels are wrong");
          }
        });
    long[][] limbs = new long[batch][];
    for (int k = 0; k < batch; k++) {
      limbs[k] = java.util.Arrays.copyOfRange(original, k * n, (k + 1) * n);
    }
    LimbBatch onHost = new LimbBatch(Collections.nCopies(batch, ntt), limbs);
    backend.forwardNttInPlace(onHost);
    long[] expected = java.util.Arrays.copyOfRange(original, 0, n);
    ntt.forwardInPlace(expected);
    if (!java.util.Arrays.equals(expected, limbs[0])) {
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
