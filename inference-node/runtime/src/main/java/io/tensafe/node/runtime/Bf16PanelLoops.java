package io.tensafe.node.runtime;

import static io.tensafe.node.runtime.Bf16VectorLoops.FLOATS;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;

/**
 * The vector loops' product for a prompt of at least {@link #MIN_TOKENS} tokens (prefill), as a
 * blocked matrix-matrix product: the tokens run along the vector lanes and each weight is
 * broadcast, so a register tile of four rows by {@link #TILE_VECTORS} vectors of tokens (16 or 8
 * accumulators) takes four broadcasts and that many loads of {@code x} per {@code 4·TILE_VECTORS}
 * fused multiply-adds, with no horizontal sum at all.
 *
 * <p>Layout: {@link #prepare} writes {@code x} transposed, {@code xT[c·padded + t]}, the columns in
 * the vector loops' order (see {@link Bf16VectorLoops}) and the tokens padded with zeros to {@code
 * padded}, a multiple of the lane count. The columns are taken in chunks of {@link #chunk} (a chunk
 * of {@code xT}, at most {@link #CHUNK_BYTES}, stays in L2 while every row block of a thread's
 * share meets it); for each chunk each block of four rows is widened once into this thread's
 * scratch (at most 4·{@code chunk} F32, in L1) and multiplied with every token; the partial sums of
 * a thread's rows live in its own buffer ({@code rows × padded} F32) across the chunks and are
 * written into {@code y} at the end. Each weight is read from memory once per product.
 *
 * <p>Summation order, per row and token: within each chunk the columns one at a time in the vector
 * loops' column order, {@code s = fma(w, x, s)} from 0; the chunks' sums then added in chunk order.
 * Fixed for a given lane count and token count, so repeated runs give the same bits, whatever the
 * threads.
 */
final class Bf16PanelLoops {
  /** Tokens from which a product takes these loops (below, the vector loops' dot products). */
  static final int MIN_TOKENS = 16;

  /** Rows of one register tile (and of one widened block). */
  private static final int ROWS = 4;

  /** Bytes of {@code xT} one chunk of columns takes, at most (but one block of columns). */
  static final int CHUNK_BYTES = 256 << 10;

  private static final int LANES = FLOATS.length();

  /** Values of {@code x} from which {@link #prepare} splits its strips over the threads. */
  private static final long PARALLEL_PREPARE_VALUES = 1L << 16;

  /** Vectors of tokens in one register tile: 4 with 32 vector registers (AVX-512), else 2. */
  private static final int TILE_VECTORS = LANES >= 16 ? 4 : 2;

  private Bf16PanelLoops() {}

  /** {@code tokens} rounded up to a multiple of the lane count. */
  static int padded(int tokens) {
    return Math.ceilDiv(tokens, LANES) * LANES;
  }

  /**
   * Columns per chunk for {@code padded} tokens: a multiple of {@code block} (the vector loops'
   * column block), at least one block, such that {@code chunk·padded} F32 fit {@link #CHUNK_BYTES}.
   */
  static int chunk(int padded, int block) {
    int fit = CHUNK_BYTES / Float.BYTES / padded;
    return Math.max(block, fit - fit % block);
  }

  /**
   * {@code x} ({@code tokens × columns}, natural column order) written transposed and padded in the
   * vector loops' column order: {@code xT[c·padded + t]}, where within each whole block of {@code
   * block} columns the even columns come first, then the odd ones (the last {@code columns mod
   * block} stay in place). Strips of one block of columns are split over {@code threads} when there
   * are enough of them.
   */
  static float[] prepare(float[] x, int tokens, int columns, int block, ProductThreads threads) {
    int padded = padded(tokens);
    float[] xT = new float[Math.multiplyExact(columns, padded)];
    int strips = Math.ceilDiv(columns, block);
    int perPart =
        (long) tokens * columns < PARALLEL_PREPARE_VALUES
            ? strips
            : Math.ceilDiv(strips, 4 * threads.size());
    threads.forEachBlock(
        Math.ceilDiv(strips, perPart),
        part -> {
          int last = Math.min(strips, (part + 1) * perPart);
          for (int strip = part * perPart; strip < last; strip++) {
            transposeStrip(x, tokens, columns, block, padded, strip * block, xT);
          }
        });
    return xT;
  }

  /**
   * Columns {@code [c0, c0 + block)} of {@code x} (fewer at the end) into {@code xT}: the strip's
   * rows of {@code xT} (16 KiB at 128 tokens) stay in L1 while every token writes into them; a
   * token at a time over all columns would miss the cache at every write.
   */
  private static void transposeStrip(
      float[] x, int tokens, int columns, int block, int padded, int c0, float[] xT) {
    int half = block / 2;
    if (c0 + block <= columns) {
      for (int t = 0; t < tokens; t++) {
        int from = t * columns + c0;
        for (int j = 0; j < half; j++) {
          xT[(c0 + j) * padded + t] = x[from + 2 * j];
          xT[(c0 + half + j) * padded + t] = x[from + 2 * j + 1];
        }
      }
    } else {
      for (int t = 0; t < tokens; t++) {
        for (int c = c0; c < columns; c++) {
          xT[c * padded + t] = x[t * columns + c];
        }
      }
    }
  }

  /**
   * {@code y[t·rows + r] = Σ_c W[r, c]·x[t, c]} for rows {@code [from, to)}, {@code x} as {@link
   * #prepare} wrote it with the vector loops' column block.
   */
  static void rowsInto(
      MemorySegment w, int rows, int columns, float[] xT, int tokens, int from, int to, float[] y) {
    int padded = padded(tokens);
    int chunk = Math.min(columns, chunk(padded, Bf16VectorLoops.BLOCK));
    int blocked = columns - columns % Bf16VectorLoops.BLOCK;
    float[] wide = Bf16VectorLoops.scratch(ROWS * chunk);
    float[] sums = new float[Math.multiplyExact(to - from, padded)];
    float[] out = new float[ROWS * TILE_VECTORS * LANES];
    for (int c0 = 0; c0 < columns; c0 += chunk) {
      int c1 = Math.min(columns, c0 + chunk);
      int width = c1 - c0;
      for (int r = from; r < to; r += ROWS) {
        int held = Math.min(ROWS, to - r);
        for (int k = 0; k < ROWS; k++) {
          if (k < held) {
            Bf16VectorLoops.widenColumns(
                w, 2L * (r + k) * columns, c0, c1, blocked, wide, k * width);
          } else {
            Arrays.fill(wide, k * width, (k + 1) * width, 0f);
          }
        }
        tile(wide, width, xT, padded, c0, sums, (r - from) * padded, held, out);
      }
    }
    for (int r = from; r < to; r++) {
      int base = (r - from) * padded;
      for (int t = 0; t < tokens; t++) {
        y[t * rows + r] = sums[base + t];
      }
    }
  }

  /**
   * Four widened rows (columns {@code c0..c0+width} of {@code xT}) times every token, added into
   * {@code sums[at + k·padded + t]} for the {@code held} real rows; {@code out} holds one register
   * tile's sums ({@code 4·TILE_VECTORS·LANES} F32).
   */
  private static void tile(
      float[] wide,
      int width,
      float[] xT,
      int padded,
      int c0,
      float[] sums,
      int at,
      int held,
      float[] out) {
    int t = 0;
    int step = TILE_VECTORS * LANES;
    for (; t + step <= padded; t += step) {
      if (TILE_VECTORS == 4) {
        fourByFour(wide, width, xT, padded, c0, t, out);
      } else {
        fourByTwo(wide, width, xT, padded, c0, t, out);
      }
      addInto(out, step, sums, at, padded, t, held);
    }
    for (; t < padded; t += LANES) {
      fourByOne(wide, width, xT, padded, c0, t, out);
      addInto(out, LANES, sums, at, padded, t, held);
    }
  }

  private static void addInto(
      float[] out, int step, float[] sums, int at, int padded, int t, int held) {
    for (int k = 0; k < held; k++) {
      int s = at + k * padded + t;
      int o = k * step;
      for (int v = 0; v < step; v += LANES) {
        FloatVector.fromArray(FLOATS, sums, s + v)
            .add(FloatVector.fromArray(FLOATS, out, o + v))
            .intoArray(sums, s + v);
      }
    }
  }

  /** Rows 0..3 of {@code wide} times tokens {@code [t, t + 4·LANES)}: {@code out[k·4L + j]}. */
  private static void fourByFour(
      float[] wide, int width, float[] xT, int padded, int c0, int t, float[] out) {
    FloatVector a00 = FloatVector.zero(FLOATS);
    FloatVector a01 = a00;
    FloatVector a02 = a00;
    FloatVector a03 = a00;
    FloatVector a10 = a00;
    FloatVector a11 = a00;
    FloatVector a12 = a00;
    FloatVector a13 = a00;
    FloatVector a20 = a00;
    FloatVector a21 = a00;
    FloatVector a22 = a00;
    FloatVector a23 = a00;
    FloatVector a30 = a00;
    FloatVector a31 = a00;
    FloatVector a32 = a00;
    FloatVector a33 = a00;
    int at = c0 * padded + t;
    for (int c = 0; c < width; c++, at += padded) {
      FloatVector x0 = FloatVector.fromArray(FLOATS, xT, at);
      FloatVector x1 = FloatVector.fromArray(FLOATS, xT, at + LANES);
      FloatVector x2 = FloatVector.fromArray(FLOATS, xT, at + 2 * LANES);
      FloatVector x3 = FloatVector.fromArray(FLOATS, xT, at + 3 * LANES);
      FloatVector b = FloatVector.broadcast(FLOATS, wide[c]);
      a00 = x0.fma(b, a00);
      a01 = x1.fma(b, a01);
      a02 = x2.fma(b, a02);
      a03 = x3.fma(b, a03);
      b = FloatVector.broadcast(FLOATS, wide[width + c]);
      a10 = x0.fma(b, a10);
      a11 = x1.fma(b, a11);
      a12 = x2.fma(b, a12);
      a13 = x3.fma(b, a13);
      b = FloatVector.broadcast(FLOATS, wide[2 * width + c]);
      a20 = x0.fma(b, a20);
      a21 = x1.fma(b, a21);
      a22 = x2.fma(b, a22);
      a23 = x3.fma(b, a23);
      b = FloatVector.broadcast(FLOATS, wide[3 * width + c]);
      a30 = x0.fma(b, a30);
      a31 = x1.fma(b, a31);
      a32 = x2.fma(b, a32);
      a33 = x3.fma(b, a33);
    }
    int s = 4 * LANES;
    a00.intoArray(out, 0);
    a01.intoArray(out, LANES);
    a02.intoArray(out, 2 * LANES);
    a03.intoArray(out, 3 * LANES);
    a10.intoArray(out, s);
    a11.intoArray(out, s + LANES);
    a12.intoArray(out, s + 2 * LANES);
    a13.intoArray(out, s + 3 * LANES);
    a20.intoArray(out, 2 * s);
    a21.intoArray(out, 2 * s + LANES);
    a22.intoArray(out, 2 * s + 2 * LANES);
    a23.intoArray(out, 2 * s + 3 * LANES);
    a30.intoArray(out, 3 * s);
    a31.intoArray(out, 3 * s + LANES);
    a32.intoArray(out, 3 * s + 2 * LANES);
    a33.intoArray(out, 3 * s + 3 * LANES);
  }

  /** As {@link #fourByFour} on two vectors of tokens (16 vector registers, AVX2). */
  private static void fourByTwo(
      float[] wide, int width, float[] xT, int padded, int c0, int t, float[] out) {
    FloatVector a00 = FloatVector.zero(FLOATS);
    FloatVector a01 = a00;
    FloatVector a10 = a00;
    FloatVector a11 = a00;
    FloatVector a20 = a00;
    FloatVector a21 = a00;
    FloatVector a30 = a00;
    FloatVector a31 = a00;
    int at = c0 * padded + t;
    for (int c = 0; c < width; c++, at += padded) {
      FloatVector x0 = FloatVector.fromArray(FLOATS, xT, at);
      FloatVector x1 = FloatVector.fromArray(FLOATS, xT, at + LANES);
      FloatVector b = FloatVector.broadcast(FLOATS, wide[c]);
      a00 = x0.fma(b, a00);
      a01 = x1.fma(b, a01);
      b = FloatVector.broadcast(FLOATS, wide[width + c]);
      a10 = x0.fma(b, a10);
      a11 = x1.fma(b, a11);
      b = FloatVector.broadcast(FLOATS, wide[2 * width + c]);
      a20 = x0.fma(b, a20);
      a21 = x1.fma(b, a21);
      b = FloatVector.broadcast(FLOATS, wide[3 * width + c]);
      a30 = x0.fma(b, a30);
      a31 = x1.fma(b, a31);
    }
    int s = 2 * LANES;
    a00.intoArray(out, 0);
    a01.intoArray(out, LANES);
    a10.intoArray(out, s);
    a11.intoArray(out, s + LANES);
    a20.intoArray(out, 2 * s);
    a21.intoArray(out, 2 * s + LANES);
    a30.intoArray(out, 3 * s);
    a31.intoArray(out, 3 * s + LANES);
  }

  /** As {@link #fourByFour} on one vector of tokens: {@code out[k·LANES + j]}. */
  private static void fourByOne(
      float[] wide, int width, float[] xT, int padded, int c0, int t, float[] out) {
    FloatVector a0 = FloatVector.zero(FLOATS);
    FloatVector a1 = a0;
    FloatVector a2 = a0;
    FloatVector a3 = a0;
    int at = c0 * padded + t;
    for (int c = 0; c < width; c++, at += padded) {
      FloatVector x0 = FloatVector.fromArray(FLOATS, xT, at);
      a0 = x0.fma(FloatVector.broadcast(FLOATS, wide[c]), a0);
      a1 = x0.fma(FloatVector.broadcast(FLOATS, wide[width + c]), a1);
      a2 = x0.fma(FloatVector.broadcast(FLOATS, wide[2 * width + c]), a2);
      a3 = x0.fma(FloatVector.broadcast(FLOATS, wide[3 * width + c]), a3);
    }
    a0.intoArray(out, 0);
    a1.intoArray(out, LANES);
    a2.intoArray(out, 2 * LANES);
    a3.intoArray(out, 3 * LANES);
  }
}
