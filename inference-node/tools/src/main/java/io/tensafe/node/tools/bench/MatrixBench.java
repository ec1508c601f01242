package io.tensafe.node.tools.bench;

import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.WeightTensor;
import io.tensafe.node.runtime.HeldMatrices;
import io.tensafe.node.runtime.HeldMatrices.Holding;
import io.tensafe.tgsp.safetensors.DType;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * {@code ./tensafe bench node --matrices}: milliseconds per product {@code x·Wᵀ} of one model
 * shape's layer matrices (q/o, k/v, gate/up, down; random BF16 N(0, 0.02²)) held each way the
 * decoder can hold them ({@link Holding}: F32 with DJL's {@code matMul}, F16 widened per product,
 * two-byte BF16 with the runtime's vector loops), beside the memory roofline: the BF16 matrix's
 * bytes over the bandwidth of a streaming read of a 512 MiB buffer, measured in the same run with
 * the same thread count as the products. Each way holds enough copies of the matrix (at least
 * {@value #COLD_BYTES} bytes of BF16) that the products, taking them in turn, read their weights
 * from memory, not from a cache, as a decoder's do. Each timing is the median of the products run
 * in {@code seconds} after a warm-up.
 */
final class MatrixBench {
  /** Bytes of the buffer the streaming read measures: far beyond any last-level cache. */
  private static final int READ_BYTES = 512 << 20;

  /** BF16 bytes of all copies of one matrix together: 8 times a 32 MiB last-level cache. */
  private static final long COLD_BYTES = 256L << 20;

  private final PrintStream out;
  private final boolean json;
  private final double seconds;

  MatrixBench(PrintStream out, boolean json, double seconds) {
    this.out = out;
    this.json = json;
    this.seconds = seconds;
  }

  /** One layer matrix of a shape: its name(s) and {@code (out, in)}. */
  record Matrix(String name, int rows, int columns) {}

  /** The four distinct layer matrices of {@code shape}. */
  static List<Matrix> matrices(ModelShape shape) {
    int attention = shape.attentionHeads() * shape.headDim();
    int keyValue = shape.keyValueHeads() * shape.headDim();
    return List.of(
        new Matrix("q_proj, o_proj", attention, shape.hiddenSize()),
        new Matrix("k_proj, v_proj", keyValue, shape.hiddenSize()),
        new Matrix("gate_proj, up_proj", shape.intermediateSize(), shape.hiddenSize()),
        new Matrix("down_proj", shape.hiddenSize(), shape.intermediateSize()));
  }

  void run(ModelShape shape, int[] tokenCounts) {
    int threads = HeldMatrices.productThreads();
    String loops = HeldMatrices.loops();
    System.err.printf(Locale.ROOT, "measuring a %d MiB streaming read ...%n", READ_BYTES >> 20);
    double gbPerS = streamingReadGbPerS(threads);
    if (!json) {
      out.printf(
          Locale.ROOT,
          "%s layer matrices; BF16 loops: %s; %d thread(s) per product; streaming read %.1f GB/s"
              + " (%d MiB, %d threads, best of 5); weights cold (copies of >= %d MiB taken in"
              + " turn)%n",
          shape.name(),
          loops,
          threads,
          gbPerS,
          READ_BYTES >> 20,
          threads,
          COLD_BYTES >> 20);
      out.printf(
          Locale.ROOT,
          "%-19s %-12s %6s %10s %12s %10s %10s %10s %9s %10s %10s %9s%n",
          "matrix",
          "out x in",
          "tokens",
          "F32 ms",
          "wide F16 ms",
          "BF16 ms",
          "roof ms",
          "F32/BF16",
          "max diff",
          "int8 ms",
          "BF16/int8",
          "int8 diff");
    }
    SplittableRandom random = new SplittableRandom(52);
    for (Matrix m : matrices(shape)) {
      System.err.printf(
          Locale.ROOT, "holding %s (%d x %d) three ways ...%n", m.name(), m.rows(), m.columns());
      int copies = (int) Math.ceilDiv(COLD_BYTES, 2L * m.rows() * m.columns());
      try (HeldMatrices held = HeldMatrices.of(bf16(m, random), copies)) {
        for (int tokens : tokenCounts) {
          float[] x = new float[tokens * m.columns()];
          for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
          }
          double f32 = msPerProduct(held.product(Holding.F32, x));
          double widened = msPerProduct(held.product(Holding.WIDENED_F16, x));
          double bf16 = msPerProduct(held.product(Holding.BF16, x));
          boolean int8Held = held.holds(Holding.INT8);
          double int8 = int8Held ? msPerProduct(held.product(Holding.INT8, x)) : Double.NaN;
          double int8Difference =
              int8Held
                  ? AnchorProtocol.relativeDifference(
                      held.result(Holding.F32, x), held.result(Holding.INT8, x))
                  : Double.NaN;
          double roofline = held.heldBytes(Holding.BF16) / (gbPerS * 1e9) * 1e3;
          double difference =
              AnchorProtocol.relativeDifference(
                  held.result(Holding.F32, x), held.result(Holding.BF16, x));
          print(
              m,
              tokens,
              loops,
              threads,
              gbPerS,
              new double[] {f32, widened, bf16, roofline, difference, int8, int8Difference});
        }
      }
    }
  }

  /**
   * One row; {@code v}: F32, widened F16, BF16 and roofline ms, the BF16 loops' largest difference
   * to F32, int8 ms and int8's largest difference (NaN, JSON null, where int8 is not held).
   */
  private void print(Matrix m, int tokens, String loops, int threads, double gbPerS, double[] v) {
    if (json) {
      out.printf(
          Locale.ROOT,
          "{\"matrix\":\"%s\",\"out\":%d,\"in\":%d,\"tokens\":%d,\"loops\":\"%s\",\"threads\":%d,"
              + "\"f32_ms\":%.4f,\"widened_f16_ms\":%.4f,\"bf16_ms\":%.4f,\"roofline_ms\":%.4f,"
              + "\"read_gb_per_s\":%.2f,\"bf16_vs_f32_max_relative_difference\":%.2e,"
              + "\"int8_ms\":%s,\"int8_vs_f32_max_relative_difference\":%s}%n",
          m.name(),
          m.rows(),
          m.columns(),
          tokens,
          loops,
          threads,
          v[0],
          v[1],
          v[2],
          v[3],
          gbPerS,
          v[4],
          Double.isNaN(v[5]) ? "null" : String.format(Locale.ROOT, "%.4f", v[5]),
          Double.isNaN(v[6]) ? "null" : String.format(Locale.ROOT, "%.2e", v[6]));
    } else {
      out.printf(
          Locale.ROOT,
          "%-19s %-12s %6d %10.3f %12.3f %10.3f %10.3f %10.2f %9.1e %10.3f %10.2f %9.1e%n",
          m.name(),
          m.rows() + " x " + m.columns(),
          tokens,
          v[0],
          v[1],
          v[2],
          v[3],
          v[0] / v[2],
          v[4],
          v[5],
          v[2] / v[5],
          v[6]);
    }
  }

  /** Median milliseconds of one run of {@code product}, after a warm-up of at least 0.3 s. */
  private double msPerProduct(Runnable product) {
    long warmEnd = System.nanoTime() + 300_000_000L;
    for (int i = 0; i < 3 || System.nanoTime() < warmEnd; i++) {
      product.run();
    }
    List<Long> times = new ArrayList<>();
    long end = System.nanoTime() + (long) (seconds * 1e9);
    while (times.size() < 5 || System.nanoTime() < end) {
      long start = System.nanoTime();
      product.run();
      times.add(System.nanoTime() - start);
    }
    long[] sorted = times.stream().mapToLong(Long::longValue).sorted().toArray();
    return sorted[sorted.length / 2] / 1e6;
  }

  /** Random N(0, 0.02²) weights of {@code m}'s shape, rounded to BF16 (to nearest, even). */
  private static WeightTensor bf16(Matrix m, SplittableRandom random) {
    byte[] data = new byte[Math.multiplyExact(2, m.rows() * m.columns())];
    for (int i = 0; i < data.length / 2; i++) {
      int bits = Float.floatToRawIntBits((float) (random.nextGaussian() * 0.02));
      int rounded = (bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16;
      data[2 * i] = (byte) rounded;
      data[2 * i + 1] = (byte) (rounded >>> 8);
    }
    return new WeightTensor(List.of((long) m.rows(), (long) m.columns()), DType.BF16, data);
  }

  /**
   * GB/s of the best of five passes that read a {@value #READ_BYTES}-byte array once, split in
   * {@code threads} contiguous parts read at once, each summed in four independent chains.
   */
  static double streamingReadGbPerS(int threads) {
    long[] buffer = new long[READ_BYTES / Long.BYTES];
    for (int i = 0; i < buffer.length; i++) {
      buffer[i] = i;
    }
    double best = 0;
    long[] sums = new long[threads];
    for (int pass = 0; pass < 5; pass++) {
      Thread[] readers = new Thread[threads];
      int part = buffer.length / threads;
      long start = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        int from = t * part;
        int to = t == threads - 1 ? buffer.length : from + part;
        int slot = t;
        readers[t] = new Thread(() -> sums[slot] = sum(buffer, from, to));
        readers[t].start();
      }
      for (Thread reader : readers) {
        try {
          reader.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while measuring the read bandwidth", e);
        }
      }
      double gbPerS = READ_BYTES / ((System.nanoTime() - start) / 1e9) / 1e9;
      best = Math.max(best, gbPerS);
    }
    if (Arrays.stream(sums).sum() == 42) {
      System.err.println(); // keeps the sums alive
    }
    return best;
  }

  private static long sum(long[] a, int from, int to) {
    long s0 = 0;
    long s1 = 0;
    long s2 = 0;
    long s3 = 0;
    int i = from;
    for (; i + 4 <= to; i += 4) {
      s0 += a[i];
      s1 += a[i + 1];
      s2 += a[i + 2];
      s3 += a[i + 3];
    }
    for (; i < to; i++) {
      s0 += a[i];
    }
    return s0 + s1 + s2 + s3;
  }
}
