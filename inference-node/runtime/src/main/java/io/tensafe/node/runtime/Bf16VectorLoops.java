package io.tensafe.node.runtime;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Bf16Loops} on the JDK's Vector API, at the machine's preferred width ({@link
 * FloatVector#SPECIES_PREFERRED}: 16 F32 lanes with AVX-512, 8 with AVX2, so {@code -XX:UseAVX=2}
 * runs them on 8). Only loaded when the {@code jdk.incubator.vector} module is (see {@link
 * Bf16Loops}).
 *
 * <p>Widening in registers: one {@code int} lane read from the matrix holds two neighbouring BF16
 * values, column {@code 2j} in its low half and {@code 2j+1} in its high half (little-endian). A
 * BF16 value is the high half of the F32 with the same bits, so {@code lane << 16} is column {@code
 * 2j} as an F32 and {@code lane & 0xFFFF0000} column {@code 2j+1}, both exact, with no cross-lane
 * shuffle. One step thus reads {@link #BLOCK} columns and yields their even columns in one F32
 * vector and their odd ones in another; {@link #prepare} puts {@code x} in that order once per
 * product (each block of {@code BLOCK} columns: its even columns, then its odd ones; the last
 * {@code columns mod BLOCK} columns stay in place and are summed by a scalar tail).
 *
 * <p>One token (decode, memory-bound): four rows at a time share each load of {@code x}, eight
 * accumulators (each row's even and odd columns) keep the FMA units busy, and the matrix is read
 * once, straight from its two-byte storage. Several tokens (prefill): each block of four rows is
 * widened once into this thread's F32 scratch (four rows, at most 143 KiB at Qwen2.5-1.5B's widest,
 * kept in L2), then multiplied with every token, two tokens at a time (eight accumulators); the
 * BF16 matrix is read from memory once per product (once per tile of {@link #TILE_BYTES} of tokens
 * for longer prompts) and never held twice.
 *
 * <p>Summation order, per row and token: lane-wise F32 fused multiply-adds over the blocks, the
 * lanes then added in lane order, then the tail's columns in column order. Fixed for a given lane
 * count, so repeated runs give the same bits.
 */
final class Bf16VectorLoops implements Bf16Loops {
  static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
  static final VectorSpecies<Integer> INTS = FLOATS.withLanes(int.class);
  private static final int LANES = FLOATS.length();

  /** Columns one step reads: one vector of {@code int} lanes, two BF16 values each. */
  static final int BLOCK = 2 * LANES;

  /** Rows that share each load of {@code x}. */
  private static final int ROWS = 4;

  private static final int HIGH_HALF = 0xFFFF0000;

  /**
   * Bytes of {@code x} one pass over a block of rows reads, at most (but two tokens): a prefill's
   * tokens are taken in tiles that stay in the last-level cache while every row block of the
   * thread's share meets them (each row block widened once per tile).
   */
  private static final int TILE_BYTES = 8 << 20;

  private static final ThreadLocal<float[]> SCRATCH = new ThreadLocal<>();

  @Override
  public float[] prepare(float[] x, int tokens, int columns) {
    return tokens >= Bf16PanelLoops.MIN_TOKENS
        ? Bf16PanelLoops.prepare(x, tokens, columns, BLOCK, ProductThreads.shared())
        : ordered(x, tokens, columns);
  }

  /** {@code x} with each block of {@link #BLOCK} columns' even columns first, then its odd ones. */
  private static float[] ordered(float[] x, int tokens, int columns) {
    int blocked = columns - columns % BLOCK;
    float[] prepared = new float[Math.multiplyExact(tokens, columns)];
    for (int t = 0; t < tokens; t++) {
      int base = t * columns;
      for (int c = 0; c < blocked; c += BLOCK) {
        for (int j = 0; j < LANES; j++) {
          prepared[base + c + j] = x[base + c + 2 * j];
          prepared[base + c + LANES + j] = x[base + c + 2 * j + 1];
        }
      }
      System.arraycopy(x, base + blocked, prepared, base + blocked, columns - blocked);
    }
    return prepared;
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
    assert w.byteSize() == 2L * rows * columns && 0 <= from && from <= to && to <= rows;
    if (tokens == 1) {
      oneToken(w, columns, prepared, from, to, y);
    } else if (tokens >= Bf16PanelLoops.MIN_TOKENS) {
      Bf16PanelLoops.rowsInto(w, rows, columns, prepared, tokens, from, to, y);
    } else {
      severalTokens(w, rows, columns, prepared, tokens, from, to, y);
    }
  }

  @Override
  public int lanes() {
    return LANES;
  }

  private static void oneToken(
      MemorySegment w, int columns, float[] x, int from, int to, float[] y) {
    int blocked = columns - columns % BLOCK;
    long rowBytes = 2L * columns;
    float[] lanes = new float[LANES];
    int r = from;
    for (; r + ROWS <= to; r += ROWS) {
      fourRows(w, rowBytes * r, rowBytes, columns, blocked, x, y, r, lanes);
    }
    for (; r < to; r++) {
      y[r] = oneRow(w, rowBytes * r, columns, blocked, x, lanes);
    }
  }

  /** {@code y[r..r+3]} for one token; the rows start at byte {@code at}, {@code rowBytes} apart. */
  private static void fourRows(
      MemorySegment w,
      long at,
      long rowBytes,
      int columns,
      int blocked,
      float[] x,
      float[] y,
      int r,
      float[] lanes) {
    FloatVector e0 = FloatVector.zero(FLOATS);
    FloatVector o0 = e0;
    FloatVector e1 = e0;
    FloatVector o1 = e0;
    FloatVector e2 = e0;
    FloatVector o2 = e0;
    FloatVector e3 = e0;
    FloatVector o3 = e0;
    long at1 = at + rowBytes;
    long at2 = at1 + rowBytes;
    long at3 = at2 + rowBytes;
    for (int c = 0; c < blocked; c += BLOCK) {
      FloatVector xe = FloatVector.fromArray(FLOATS, x, c);
      FloatVector xo = FloatVector.fromArray(FLOATS, x, c + LANES);
      long offset = 2L * c;
      IntVector p = pairs(w, at + offset);
      e0 = even(p).fma(xe, e0);
      o0 = odd(p).fma(xo, o0);
      p = pairs(w, at1 + offset);
      e1 = even(p).fma(xe, e1);
      o1 = odd(p).fma(xo, o1);
      p = pairs(w, at2 + offset);
      e2 = even(p).fma(xe, e2);
      o2 = odd(p).fma(xo, o2);
      p = pairs(w, at3 + offset);
      e3 = even(p).fma(xe, e3);
      o3 = odd(p).fma(xo, o3);
    }
    y[r] = finish(e0.add(o0), w, at, columns, blocked, x, lanes);
    y[r + 1] = finish(e1.add(o1), w, at1, columns, blocked, x, lanes);
    y[r + 2] = finish(e2.add(o2), w, at2, columns, blocked, x, lanes);
    y[r + 3] = finish(e3.add(o3), w, at3, columns, blocked, x, lanes);
  }

  /** One row's product with one token: the same sums, in the same order, as {@link #fourRows}. */
  private static float oneRow(
      MemorySegment w, long at, int columns, int blocked, float[] x, float[] lanes) {
    FloatVector e = FloatVector.zero(FLOATS);
    FloatVector o = e;
    for (int c = 0; c < blocked; c += BLOCK) {
      IntVector p = pairs(w, at + 2L * c);
      e = even(p).fma(FloatVector.fromArray(FLOATS, x, c), e);
      o = odd(p).fma(FloatVector.fromArray(FLOATS, x, c + LANES), o);
    }
    return finish(e.add(o), w, at, columns, blocked, x, lanes);
  }

  /** The lanes of {@code sum} in lane order, plus the tail columns of the row at {@code at}. */
  private static float finish(
      FloatVector sum,
      MemorySegment w,
      long at,
      int columns,
      int blocked,
      float[] x,
      float[] lanes) {
    sum.intoArray(lanes, 0);
    float total = 0;
    for (float v : lanes) {
      total += v;
    }
    for (int c = blocked; c < columns; c++) {
      total += Bf16Loops.widen(w.get(Bf16ScalarLoops.BITS, at + 2L * c)) * x[c];
    }
    return total;
  }

  private static void severalTokens(
      MemorySegment w, int rows, int columns, float[] x, int tokens, int from, int to, float[] y) {
    int blocked = columns - columns % BLOCK;
    float[] wide = scratch(ROWS * columns);
    float[] lanes = new float[LANES];
    float[] out = new float[2 * ROWS];
    int tile = Math.max(2, TILE_BYTES / Float.BYTES / columns);
    for (int first = 0; first < tokens; first += tile) {
      int last = Math.min(tokens, first + tile);
      for (int r = from; r < to; r += ROWS) {
        int held = Math.min(ROWS, to - r);
        for (int k = 0; k < ROWS; k++) {
          if (k < held) {
            widenRow(w, 2L * (r + k) * columns, columns, blocked, wide, k * columns);
          } else {
            Arrays.fill(wide, k * columns, (k + 1) * columns, 0f);
          }
        }
        tokensInto(wide, rows, columns, blocked, x, first, last, r, held, y, out, lanes);
      }
    }
  }

  /**
   * Four widened rows, from row {@code r} ({@code held} of them real), times tokens [first, last).
   */
  private static void tokensInto(
      float[] wide,
      int rows,
      int columns,
      int blocked,
      float[] x,
      int first,
      int last,
      int r,
      int held,
      float[] y,
      float[] out,
      float[] lanes) {
    for (int t = first; t < last; t += 2) {
      int pair = Math.min(2, last - t);
      if (pair == 2) {
        fourByTwo(wide, columns, blocked, x, t * columns, (t + 1) * columns, out, lanes);
      } else {
        fourByOne(wide, columns, blocked, x, t * columns, out, lanes);
      }
      for (int s = 0; s < pair; s++) {
        for (int k = 0; k < held; k++) {
          y[(t + s) * rows + r + k] = out[s * ROWS + k];
        }
      }
    }
  }

  /** Row at byte {@code at} widened into {@code wide[base..base+columns)}, in {@code x}'s order. */
  private static void widenRow(
      MemorySegment w, long at, int columns, int blocked, float[] wide, int base) {
    widenColumns(w, at, 0, columns, blocked, wide, base);
  }

  /**
   * Columns {@code [c0, c1)} of the row at byte {@code at} widened into {@code
   * wide[base..base+c1−c0)}, in {@code x}'s order; {@code c0} is a multiple of {@link #BLOCK},
   * {@code c1} too or the row's end.
   */
  static void widenColumns(
      MemorySegment w, long at, int c0, int c1, int blocked, float[] wide, int base) {
    int vectorEnd = Math.min(c1, blocked);
    int c = c0;
    for (; c < vectorEnd; c += BLOCK) {
      IntVector p = pairs(w, at + 2L * c);
      even(p).intoArray(wide, base + c - c0);
      odd(p).intoArray(wide, base + c - c0 + LANES);
    }
    for (; c < c1; c++) {
      wide[base + c - c0] = Bf16Loops.widen(w.get(Bf16ScalarLoops.BITS, at + 2L * c));
    }
  }

  /** Four widened rows times tokens at {@code x0} and {@code x1}: {@code out[s·4 + k]}. */
  private static void fourByTwo(
      float[] wide,
      int columns,
      int blocked,
      float[] x,
      int x0,
      int x1,
      float[] out,
      float[] lanes) {
    FloatVector a00 = FloatVector.zero(FLOATS);
    FloatVector a10 = a00;
    FloatVector a20 = a00;
    FloatVector a30 = a00;
    FloatVector a01 = a00;
    FloatVector a11 = a00;
    FloatVector a21 = a00;
    FloatVector a31 = a00;
    int w1 = columns;
    int w2 = 2 * columns;
    int w3 = 3 * columns;
    for (int c = 0; c < blocked; c += LANES) {
      FloatVector v0 = FloatVector.fromArray(FLOATS, x, x0 + c);
      FloatVector v1 = FloatVector.fromArray(FLOATS, x, x1 + c);
      FloatVector m = FloatVector.fromArray(FLOATS, wide, c);
      a00 = m.fma(v0, a00);
      a01 = m.fma(v1, a01);
      m = FloatVector.fromArray(FLOATS, wide, w1 + c);
      a10 = m.fma(v0, a10);
      a11 = m.fma(v1, a11);
      m = FloatVector.fromArray(FLOATS, wide, w2 + c);
      a20 = m.fma(v0, a20);
      a21 = m.fma(v1, a21);
      m = FloatVector.fromArray(FLOATS, wide, w3 + c);
      a30 = m.fma(v0, a30);
      a31 = m.fma(v1, a31);
    }
    out[0] = finishWide(a00, wide, 0, columns, blocked, x, x0, lanes);
    out[1] = finishWide(a10, wide, w1, columns, blocked, x, x0, lanes);
    out[2] = finishWide(a20, wide, w2, columns, blocked, x, x0, lanes);
    out[3] = finishWide(a30, wide, w3, columns, blocked, x, x0, lanes);
    out[4] = finishWide(a01, wide, 0, columns, blocked, x, x1, lanes);
    out[5] = finishWide(a11, wide, w1, columns, blocked, x, x1, lanes);
    out[6] = finishWide(a21, wide, w2, columns, blocked, x, x1, lanes);
    out[7] = finishWide(a31, wide, w3, columns, blocked, x, x1, lanes);
  }

  /** As {@link #fourByTwo} for one token at {@code x0}: {@code out[k]}. */
  private static void fourByOne(
      float[] wide, int columns, int blocked, float[] x, int x0, float[] out, float[] lanes) {
    FloatVector a0 = FloatVector.zero(FLOATS);
    FloatVector a1 = a0;
    FloatVector a2 = a0;
    FloatVector a3 = a0;
    for (int c = 0; c < blocked; c += LANES) {
      FloatVector v = FloatVector.fromArray(FLOATS, x, x0 + c);
      a0 = FloatVector.fromArray(FLOATS, wide, c).fma(v, a0);
      a1 = FloatVector.fromArray(FLOATS, wide, columns + c).fma(v, a1);
      a2 = FloatVector.fromArray(FLOATS, wide, 2 * columns + c).fma(v, a2);
      a3 = FloatVector.fromArray(FLOATS, wide, 3 * columns + c).fma(v, a3);
    }
    out[0] = finishWide(a0, wide, 0, columns, blocked, x, x0, lanes);
    out[1] = finishWide(a1, wide, columns, columns, blocked, x, x0, lanes);
    out[2] = finishWide(a2, wide, 2 * columns, columns, blocked, x, x0, lanes);
    out[3] = finishWide(a3, wide, 3 * columns, columns, blocked, x, x0, lanes);
  }

  /** As {@link #finish}, the tail read from a widened row at {@code base}. */
  private static float finishWide(
      FloatVector sum,
      float[] wide,
      int base,
      int columns,
      int blocked,
      float[] x,
      int x0,
      float[] lanes) {
    sum.intoArray(lanes, 0);
    float total = 0;
    for (float v : lanes) {
      total += v;
    }
    for (int c = blocked; c < columns; c++) {
      total += wide[base + c] * x[x0 + c];
    }
    return total;
  }

  /** {@code LANES} ints at byte {@code at}: {@code 2·LANES} BF16 values, pairwise. */
  private static IntVector pairs(MemorySegment w, long at) {
    return IntVector.fromMemorySegment(INTS, w, at, ByteOrder.LITTLE_ENDIAN);
  }

  /** The low halves (even columns) as F32: exact. */
  private static FloatVector even(IntVector p) {
    return p.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
  }

  /** The high halves (odd columns) as F32: exact. */
  private static FloatVector odd(IntVector p) {
    return p.and(HIGH_HALF).reinterpretAsFloats();
  }

  /**
   * This thread's F32 scratch of at least {@code length} values (contents unspecified), shared by
   * the several-token loops here and {@link Bf16PanelLoops}, which never run nested on one thread.
   */
  static float[] scratch(int length) {
    float[] s = SCRATCH.get();
    if (s == null || s.length < length) {
      s = new float[length];
      SCRATCH.set(s);
    }
    return s;
  }
}
