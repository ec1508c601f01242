package io.tensafe.node.runtime;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@link Bf16Loops} in plain Java, one value at a time: the fallback where the {@code
 * jdk.incubator.vector} module is not loaded. Each dot product sums in column order, {@code s +=
 * w·x} (the product rounded to F32, then the sum), from 0.
 */
final class Bf16ScalarLoops implements Bf16Loops {
  /** A BF16 value: two little-endian bytes at any even offset. */
  static final ValueLayout.OfShort BITS =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

  @Override
  public float[] prepare(float[] x, int tokens, int columns) {
    return x;
  }

  @Override
  public void rowsInto(
      MemorySegment w,
      int rows,
      int columns,
      float[] prepared,
      int tokens,
      int from,
      int to,
      float[] y) {
    for (int r = from; r < to; r++) {
      long row = 2L * r * columns;
      for (int t = 0; t < tokens; t++) {
        int xBase = t * columns;
        float sum = 0;
        for (int c = 0; c < columns; c++) {
          sum += Bf16Loops.widen(w.get(BITS, row + 2L * c)) * prepared[xBase + c];
        }
        y[t * rows + r] = sum;
      }
    }
  }

  @Override
  public int lanes() {
    return 1;
  }
}
