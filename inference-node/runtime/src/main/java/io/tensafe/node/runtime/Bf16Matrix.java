package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.node.model.WeightTensor;
import io.tensafe.tgsp.safetensors.DType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A BF16 weight matrix {@code W} of shape {@code (rows, columns)} = {@code (out, in)} held as its
 * file's two bytes per value, row-major, little-endian, in native memory of the decoder's arena;
 * its products are computed by this package's own loops ({@link Bf16Loops}: each value widened
 * exactly to F32 in registers, F32 fused multiply-adds), not by DJL, whose PyTorch engine 0.35.1
 * cannot hold BF16. A decode step reads each value once, two bytes, which is the floor for a
 * memory-bound product; a product's rows are split over {@link ProductThreads}.
 *
 * <p>Numbers: every BF16 value (subnormal, infinite and NaN included) is used exactly; a product
 * differs from the F32 product of the same values only in summation order, by at most {@code
 * γ(columns + 1)·Σ|W[r,c]·x[c]|} per output, {@code γ(n) = n·2^-24/(1 − n·2^-24)} (plus F32's
 * underflow, {@code (columns + 1)·2^-149}).
 *
 * <p>Invariants: {@code bits} holds exactly {@code 2·rows·columns} bytes, is read-only, and lives
 * as long as the arena that allocated it (the decoder's: closing the decoder frees it, and a
 * product still running then fails with {@link IllegalStateException}, never reads freed memory);
 * {@code rows, columns ≥ 1}.
 *
 * @param bits the values
 * @param rows output width ({@code out})
 * @param columns input width ({@code in})
 */
record Bf16Matrix(MemorySegment bits, int rows, int columns) implements WeightMatrix {
  /**
   * Multiply-adds below which a product runs on the calling thread alone: handing rows to a helper
   * costs tens of microseconds, about this much work (a 256-row, 512-column product).
   */
  static final long PARALLEL_MIN_MULTIPLY_ADDS = 1L << 17;

  Bf16Matrix {
    if (rows < 1 || columns < 1 || bits.byteSize() != 2L * rows * columns || !bits.isReadOnly()) {
      throw new IllegalArgumentException(
          "a BF16 matrix of "
              + rows
              + " x "
              + columns
              + " needs a read-only segment of "
              + 2L * rows * columns
              + " bytes, got "
              + bits.byteSize());
    }
  }

  /**
   * {@code t}'s values copied into {@code arena}.
   *
   * @throws IllegalArgumentException unless {@code t} is a BF16 matrix with both dimensions ≥ 1
   */
  static Bf16Matrix of(Arena arena, WeightTensor t) {
    if (!holds(t)) {
      throw new IllegalArgumentException(
          "a BF16 matrix needs a 2-D BF16 tensor with both dimensions >= 1, got "
              + t.dtype()
              + " "
              + t.shape());
    }
    byte[] data = t.data();
    MemorySegment bits = arena.allocate(data.length, 64);
    MemorySegment.copy(data, 0, bits, ValueLayout.JAVA_BYTE, 0, data.length);
    return new Bf16Matrix(
        bits.asReadOnly(), Math.toIntExact(t.shape().get(0)), Math.toIntExact(t.shape().get(1)));
  }

  /** Whether {@code t} can be held as a {@code Bf16Matrix}. */
  static boolean holds(WeightTensor t) {
    return t.dtype() == DType.BF16
        && t.shape().size() == 2
        && t.shape().get(0) >= 1
        && t.shape().get(1) >= 1;
  }

  /** {@code y = x·Wᵀ}: {@code x} is {@code (tokens, columns)}, {@code y} {@code (tokens, rows)}. */
  void productInto(float[] x, int tokens, float[] y) {
    productInto(x, tokens, y, Bf16Loops.chosen(), ProductThreads.shared());
  }

  /** As {@link #productInto(float[], int, float[])}, on the given loops and threads. */
  void productInto(float[] x, int tokens, float[] y, Bf16Loops loops, ProductThreads threads) {
    if (tokens < 1 || x.length != (long) tokens * columns || y.length != (long) tokens * rows) {
      throw new IllegalArgumentException(
          "a product with "
              + tokens
              + " token(s) of a "
              + rows
              + " x "
              + columns
              + " matrix takes "
              + (long) tokens * columns
              + " inputs and "
              + (long) tokens * rows
              + " outputs, got "
              + x.length
              + " and "
              + y.length);
    }
    preparedInto(loops.prepare(x, tokens, columns), tokens, y, loops, threads);
  }

  /**
   * As {@link #productInto}, {@code x} already in {@code loops}' order ({@link Bf16Loops#prepare}).
   */
  private void preparedInto(
      float[] prepared, int tokens, float[] y, Bf16Loops loops, ProductThreads threads) {
    threads.forEachRowRange(
        rows,
        (long) rows * columns * tokens,
        PARALLEL_MIN_MULTIPLY_ADDS,
        (from, to) -> loops.rowsInto(bits, rows, columns, prepared, tokens, from, to, y));
  }

  /** Row {@code row} widened to F32 (exact) into {@code out[at..at+columns)}. */
  void rowInto(int row, float[] out, int at) {
    long base = 2L * row * columns;
    for (int c = 0; c < columns; c++) {
      out[at + c] = Bf16Loops.widen(bits.get(Bf16ScalarLoops.BITS, base + 2L * c));
    }
  }

  @Override
  public NDArray product(NDArray x) {
    return product(Input.of(x, columns));
  }

  /** {@code x·Wᵀ} of an input already read and prepared (for matrices of this width). */
  NDArray product(Input in) {
    if (in.columns() != columns) {
      throw new IllegalArgumentException(
          "an input of " + in.columns() + " columns for a matrix of " + columns);
    }
    float[] y = new float[Math.multiplyExact(in.tokens(), rows)];
    preparedInto(in.prepared(), in.tokens(), y, Bf16Loops.chosen(), ProductThreads.shared());
    return WeightMatrix.result(in.x(), y, rows);
  }

  /**
   * An input {@code x} ({@code (…, columns)} FLOAT32) read out of DJL and put in the chosen loops'
   * order once, so that several matrices of the same width multiply it without doing either again.
   * Invariant: {@code prepared} is {@link Bf16Loops#prepare} of {@code x}'s values as they were
   * when read; {@code x} is kept only for its shape and manager.
   */
  record Input(NDArray x, int columns, int tokens, float[] prepared) {
    /**
     * {@code x} read and prepared for matrices of {@code columns} columns.
     *
     * @throws IllegalArgumentException unless {@code x}'s last dimension is {@code columns}
     */
    static Input of(NDArray x, int columns) {
      int tokens = WeightMatrix.tokens(x, columns);
      float[] prepared = Bf16Loops.chosen().prepare(x.toFloatArray(), tokens, columns);
      return new Input(x, columns, tokens, prepared);
    }
  }

  @Override
  public NDArray rows(NDManager step, NDArray ids) {
    return WeightMatrix.gathered(step, ids, rows, columns, this::rowInto);
  }

  @Override
  public long heldBytes() {
    return bits.byteSize();
  }
}
