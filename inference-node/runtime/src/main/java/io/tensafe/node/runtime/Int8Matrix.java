package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.tensafe.node.model.WeightTensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A weight matrix quantised to int8 with one F32 scale per row: {@code W[r, c] ≈ scales[r]·q[r,
 * c]}, {@code q} in [−127, 127], {@code scales[r] = max_c |W[r, c]| / 127} (0 for a row of zeros),
 * each value rounded to the nearest step (error at most {@code scales[r]/2}). One byte per value,
 * half of BF16: issue 52's optional int8, held only by the benchmarks ({@link WeightPrecision#INT8}
 * in {@code bench node --anchors}, {@link HeldMatrices} in {@code --matrices}) and not a node
 * setting: it measured 1.13× BF16's decode with logits 10 % off F32's (ADR 0046). Products widen
 * each byte exactly to F32 in registers ({@link Int8Loops}) and scale each row's sum once.
 *
 * <p>Invariants: {@code values} holds exactly {@code rows·columns} bytes, read-only, row-major, in
 * the arena that allocated it; {@code scales.length == rows}, each finite and ≥ 0; {@code rows,
 * columns ≥ 1}.
 *
 * @param values the quantised values
 * @param scales per-row scale
 * @param rows output width
 * @param columns input width
 */
record Int8Matrix(MemorySegment values, float[] scales, int rows, int columns)
    implements WeightMatrix {
  Int8Matrix {
    if (rows < 1
        || columns < 1
        || values.byteSize() != (long) rows * columns
        || !values.isReadOnly()
        || scales.length != rows) {
      throw new IllegalArgumentException(
          "an int8 matrix of " + rows + " x " + columns + " needs that many bytes and scales");
    }
  }

  /** {@code t} (a 2-D BF16, F16 or F32 tensor) quantised into {@code arena}. */
  static Int8Matrix quantise(Arena arena, WeightTensor t) {
    if (t.shape().size() != 2) {
      throw new IllegalArgumentException("an int8 matrix needs a 2-D tensor, got " + t.shape());
    }
    int rows = Math.toIntExact(t.shape().get(0));
    int columns = Math.toIntExact(t.shape().get(1));
    MemorySegment values = arena.allocate((long) rows * columns, 64);
    float[] scales = new float[rows];
    for (int r = 0; r < rows; r++) {
      float max = 0;
      for (int c = 0; c < columns; c++) {
        max = Math.max(max, Math.abs(t.get(r * columns + c)));
      }
      if (!Float.isFinite(max)) {
        throw new IllegalArgumentException("row " + r + " holds a value that is not finite");
      }
      scales[r] = max / 127f;
      for (int c = 0; c < columns; c++) {
        int q = max == 0 ? 0 : Math.round(t.get(r * columns + c) / scales[r]);
        values.set(ValueLayout.JAVA_BYTE, (long) r * columns + c, (byte) Math.clamp(q, -127, 127));
      }
    }
    return new Int8Matrix(values.asReadOnly(), scales, rows, columns);
  }

  @Override
  public NDArray product(NDArray x) {
    int tokens = WeightMatrix.tokens(x, columns);
    float[] xs = x.toFloatArray();
    float[] y = new float[Math.multiplyExact(tokens, rows)];
    ProductThreads.shared()
        .forEachRowRange(
            rows,
            (long) rows * columns * tokens,
            Bf16Matrix.PARALLEL_MIN_MULTIPLY_ADDS,
            (from, to) -> Int8Loops.rowsInto(this, xs, tokens, from, to, y));
    return WeightMatrix.result(x, y, rows);
  }

  @Override
  public NDArray rows(NDManager step, NDArray ids) {
    return WeightMatrix.gathered(step, ids, rows, columns, this::rowInto);
  }

  /** Row {@code row} dequantised into {@code out[at..at+columns)}. */
  void rowInto(int row, float[] out, int at) {
    long base = (long) row * columns;
    for (int c = 0; c < columns; c++) {
      out[at + c] = scales[row] * values.get(ValueLayout.JAVA_BYTE, base + c);
    }
  }

  @Override
  public long heldBytes() {
    return values.byteSize() + (long) Float.BYTES * rows;
  }
}
