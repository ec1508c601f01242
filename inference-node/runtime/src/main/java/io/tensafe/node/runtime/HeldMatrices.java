package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import io.tensafe.node.model.WeightTensor;
import java.lang.foreign.Arena;
import java.util.EnumMap;
import java.util.Map;

/**
 * One BF16 matrix held in each way a decoder can hold it, for measuring their products side by side
 * ({@code ./tensafe bench node --matrices}); a developer tool's view of {@link WeightMatrix}, not
 * used by the decoder. Close it to free the copies.
 */
public final class HeldMatrices implements AutoCloseable {
  /** The ways a BF16 matrix can be held. */
  public enum Holding {
    /** Widened to F32 at load, DJL {@code matMul} ({@link WeightPrecision#F32}). */
    F32,
    /**
     * F16 of {@code W·2^s}, widened to F32 per product, then DJL {@code matMul}: the default before
     * issue 52.
     */
    WIDENED_F16,
    /** Two bytes per value, this package's vector loops: the default now. */
    BF16,
    /**
     * One byte per value and a scale per row ({@link Int8Matrix}): measured only, not offered to
     * the decoder; held only where the vector loops run.
     */
    INT8
  }

  private final NDManager manager;
  private final Arena arena;
  private final Map<Holding, WeightMatrix[]> held = new EnumMap<>(Holding.class);
  private final int columns;

  private HeldMatrices(WeightTensor bf16, int copies) {
    if (!Bf16Matrix.holds(bf16) || copies < 1) {
      throw new IllegalArgumentException(
          "a 2-D BF16 matrix and at least one copy, got "
              + bf16.dtype()
              + bf16.shape()
              + ", "
              + copies);
    }
    manager = NDManager.newBaseManager("PyTorch");
    arena = Arena.ofShared();
    WideningBuffers buffers = new WideningBuffers(manager);
    boolean vectors = Bf16Loops.vectorsChosen();
    for (Holding h : Holding.values()) {
      if (h != Holding.INT8 || vectors) {
        held.put(h, new WeightMatrix[copies]);
      }
    }
    for (int i = 0; i < copies; i++) {
      held.get(Holding.F32)[i] =
          WeightMatrix.of(manager, arena, bf16, buffers, WeightPrecision.F32);
      held.get(Holding.WIDENED_F16)[i] = DjlWeights.scaledHalf(manager, bf16, buffers);
      held.get(Holding.BF16)[i] = WeightMatrix.of(manager, arena, bf16, buffers);
      if (vectors) {
        held.get(Holding.INT8)[i] = Int8Matrix.quantise(arena, bf16);
      }
    }
    columns = Math.toIntExact(bf16.shape().get(1));
  }

  /** {@code bf16} held every way, {@code copies ≥ 1} copies each. */
  public static HeldMatrices of(WeightTensor bf16, int copies) {
    return new HeldMatrices(bf16, copies);
  }

  /**
   * An action that computes {@code x·Wᵀ} once with the matrix held as {@code holding}, on the next
   * copy in turn, and frees the result: what the decoder pays per product, its input already a DJL
   * array. Not for concurrent use.
   *
   * @param x {@code (tokens, in)} row-major
   */
  public Runnable product(Holding holding, float[] x) {
    WeightMatrix[] copies = held.get(holding);
    NDArray input = manager.create(x, new Shape(x.length / columns, columns));
    int[] next = {0};
    return () -> {
      copies[next[0]].product(input).close();
      next[0] = (next[0] + 1) % copies.length;
    };
  }

  /** {@code x·Wᵀ}, {@code (tokens, out)} row-major, with the matrix held as {@code holding}. */
  public float[] result(Holding holding, float[] x) {
    try (NDManager step = manager.newSubManager()) {
      return held.get(holding)[0]
          .product(step.create(x, new Shape(x.length / columns, columns)))
          .toFloatArray();
    }
  }

  /** Whether the matrix is held as {@code holding} (int8 only where the vector loops run). */
  public boolean holds(Holding holding) {
    return held.containsKey(holding);
  }

  /** Bytes one copy's values take held as {@code holding}. */
  public long heldBytes(Holding holding) {
    return held.get(holding)[0].heldBytes();
  }

  /** The BF16 loops this JVM runs, in words: {@code "vector, 16 lanes"} or {@code "scalar"}. */
  public static String loops() {
    return Bf16Loops.chosen().describe();
  }

  /**
   * F32 lanes of one vector of the BF16 loops this JVM chose: 16 with AVX-512, 8 with AVX2 (or
   * {@code -XX:UseAVX=2}), 1 for the scalar loops.
   */
  public static int lanes() {
    return Bf16Loops.chosen().lanes();
  }

  /**
   * The F32 fused multiply-add rate, 10⁹ per second, of {@code threads} threads with operands in
   * registers at the BF16 loops' width (the ceiling of their products), measured for about 0.3 s,
   * best of three; NaN where the loops are the scalar ones (no vector module).
   */
  public static double fmaPeakGmacPerS(int threads) {
    return Bf16Loops.vectorsChosen() ? FmaPeak.gmacPerS(threads, 300_000_000L) : Double.NaN;
  }

  /** Threads a BF16 product is split over, the caller included. */
  public static int productThreads() {
    return ProductThreads.shared().size();
  }

  @Override
  public void close() {
    manager.close();
    arena.close();
  }
}
