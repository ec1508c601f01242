package io.tensafe.kernels.bench;

import io.tensafe.kernels.backend.CpuBackend;
import io.tensafe.kernels.backend.LimbBatch;
import io.tensafe.kernels.cuda.CudaBackend;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Limb-NTTs per second at several batch sizes: on the GPU device-resident and with transfers
 * ({@link CudaNttMeasurement}), on the CPU through {@link CpuBackend} on one thread.
 */
final class BatchedNttBench {
  /** A GPU row's lane fields (ADR 0033): the device computes on 64-bit words, not host lanes. */
  static final String CUDA_LANE_FIELDS =
      "\"implementation\":\"cuda\",\"arithmetic\":\"int64\",\"lanes\":0";

  private final NegacyclicNtt ntt;
  private final int bits;
  private final List<Integer> batches;
  private final boolean json;
  private final int seconds;

  BatchedNttBench(NegacyclicNtt ntt, int bits, List<Integer> batches, boolean json, int seconds) {
    this.ntt = ntt;
    this.bits = bits;
    this.batches = List.copyOf(batches);
    this.json = json;
    this.seconds = seconds;
  }

  void run(String backend) {
    int logN = Integer.numberOfTrailingZeros(ntt.degree());
    if ("cuda".equals(backend)) {
      try (CudaBackend cuda = CudaBackend.open()) {
        System.err.println("timing the batched NTT on " + cuda.describe() + " ...");
        for (int batch : batches) {
          int rounds = (int) Math.max(5, Math.min(2000, 400_000L / batch));
          CudaNttMeasurement.Result r = CudaNttMeasurement.measure(cuda, ntt, batch, rounds);
          print(
              logN,
              batch,
              "cuda",
              r.forwardPerSecond(),
              r.inversePerSecond(),
              r.forwardWithTransfersPerSecond(),
              cuda.describe());
        }
      }
      return;
    }
    CpuBackend cpu = new CpuBackend();
    Stopwatch stopwatch = new Stopwatch(500, 5, Math.max(1, seconds * 1000L / 5));
    for (int batch : batches) {
      long[][] limbs = new long[batch][];
      SplittableRandom random = new SplittableRandom(batch);
      for (int k = 0; k < batch; k++) {
        limbs[k] = random.longs(ntt.degree(), 0, ntt.modulus().value()).toArray();
      }
      LimbBatch data = new LimbBatch(Collections.nCopies(batch, ntt), limbs);
      double forward =
          batch / (stopwatch.medianNanosPerCall(() -> cpu.forwardNttInPlace(data)) / 1e9);
      double inverse =
          batch / (stopwatch.medianNanosPerCall(() -> cpu.inverseNttInPlace(data)) / 1e9);
      print(logN, batch, "cpu", forward, inverse, forward, "1 thread");
    }
  }

  private void print(
      int logN,
      int batch,
      String backend,
      double forward,
      double inverse,
      double withTransfers,
      String device) {
    if (json) {
      System.out.printf(
          Locale.ROOT,
          "{\"backend\":\"%s\",\"log_n\":%d,\"prime_bits\":%d,%s,\"batch\":%d,"
              + "\"forward_ntts_per_s\":%.0f,\"inverse_ntts_per_s\":%.0f,"
              + "\"forward_with_transfers_ntts_per_s\":%.0f,\"device\":\"%s\"}%n",
          backend,
          logN,
          bits,
          "cuda".equals(backend) ? CUDA_LANE_FIELDS : ntt.laneFields(),
          batch,
          forward,
          inverse,
          withTransfers,
          device.replace("\"", "'"));
    } else {
      System.out.printf(
          Locale.ROOT,
          "%-5s N=2^%d batch %-6d forward %,12.0f NTT/s  inverse %,12.0f NTT/s  with copies %,12.0f"
              + " NTT/s  (%s)%n",
          backend,
          logN,
          batch,
          forward,
          inverse,
          withTransfers,
          device);
    }
  }
}
