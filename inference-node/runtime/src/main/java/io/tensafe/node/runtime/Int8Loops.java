package io.tensafe.node.runtime;

import static io.tensafe.node.runtime.Bf16VectorLoops.FLOATS;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Int8Matrix}'s products on the Vector API: one vector of bytes (as many as the F32 lanes)
 * widened exactly to F32 per step ({@code B2F}), four rows sharing each load of {@code x}, each
 * row's lanes then summed in lane order, the tail in column order, and the sum multiplied by the
 * row's scale. Tokens one at a time. Only loaded with the {@code jdk.incubator.vector} module.
 */
final class Int8Loops {
  private static final int LANES = FLOATS.length();
  private static final VectorSpecies<Byte> BYTES =
      VectorSpecies.of(byte.class, VectorShape.forBitSize(LANES * Byte.SIZE));

  private Int8Loops() {}

  /** {@code y[t·rows + r]} for rows {@code [from, to)} and every token. */
  static void rowsInto(Int8Matrix m, float[] x, int tokens, int from, int to, float[] y) {
    int columns = m.columns();
    int blocked = columns - columns % LANES;
    MemorySegment w = m.values();
    for (int t = 0; t < tokens; t++) {
      int xb = t * columns;
      int yb = t * m.rows();
      int r = from;
      for (; r + 4 <= to; r += 4) {
        long at = (long) r * columns;
        FloatVector a0 = FloatVector.zero(FLOATS);
        FloatVector a1 = a0;
        FloatVector a2 = a0;
        FloatVector a3 = a0;
        for (int c = 0; c < blocked; c += LANES) {
          FloatVector v = FloatVector.fromArray(FLOATS, x, xb + c);
          a0 = widened(w, at + c).fma(v, a0);
          a1 = widened(w, at + columns + c).fma(v, a1);
          a2 = widened(w, at + 2L * columns + c).fma(v, a2);
          a3 = widened(w, at + 3L * columns + c).fma(v, a3);
        }
        y[yb + r] = finish(m, r, a0, x, xb, blocked);
        y[yb + r + 1] = finish(m, r + 1, a1, x, xb, blocked);
        y[yb + r + 2] = finish(m, r + 2, a2, x, xb, blocked);
        y[yb + r + 3] = finish(m, r + 3, a3, x, xb, blocked);
      }
      for (; r < to; r++) {
        long at = (long) r * columns;
        FloatVector a = FloatVector.zero(FLOATS);
        for (int c = 0; c < blocked; c += LANES) {
          a = widened(w, at + c).fma(FloatVector.fromArray(FLOATS, x, xb + c), a);
        }
        y[yb + r] = finish(m, r, a, x, xb, blocked);
      }
    }
  }

  /** {@code LANES} bytes at {@code at}, widened to F32 (exact). */
  private static FloatVector widened(MemorySegment w, long at) {
    return (FloatVector)
        ByteVector.fromMemorySegment(BYTES, w, at, ByteOrder.nativeOrder())
            .convertShape(VectorOperators.B2F, FLOATS, 0);
  }

  private static float finish(
      Int8Matrix m, int r, FloatVector sum, float[] x, int xb, int blocked) {
    float total = sum.reduceLanes(VectorOperators.ADD);
    long at = (long) r * m.columns();
    for (int c = blocked; c < m.columns(); c++) {
      total += m.values().get(ValueLayout.JAVA_BYTE, at + c) * x[xb + c];
    }
    return m.scales()[r] * total;
  }
}
