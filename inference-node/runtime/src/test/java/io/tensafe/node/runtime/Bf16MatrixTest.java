package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.node.model.WeightTensor;
import io.tensafe.tgsp.safetensors.DType;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Bf16Matrix}'s products, on both loops, against a plain loop in double precision on the
 * same BF16 values: odd shapes (rows and columns not multiples of the lanes or of the vector loops'
 * block, one row, one column), one token (decode) and 3 and 17 (prefill), values of both signs from
 * BF16's subnormals to 10^4. The build runs this class twice: as the machine is, and with {@code
 * -XX:UseAVX=2} (eight lanes).
 *
 * <p>Tolerance: the loops differ from the exact sum only by F32 rounding in their summation order;
 * along any path from a term to the result there are at most {@code columns + 1} roundings (see
 * {@link Bf16VectorLoops}'s order), so the error is at most {@code γ(columns + 1)·Σ|w·x|}, {@code
 * γ(n) = n·u/(1 − n·u)}, {@code u = 2^-24}, plus {@code 2^-150} per rounding of a subnormal result.
 */
class Bf16MatrixTest {
  private final Arena arena = Arena.ofShared(); // products run on helper threads too

  @AfterEach
  void close() {
    arena.close();
  }

  @Test
  void lanes_areTheOnesTheRunAsksFor() {
    int lanes = new Bf16VectorLoops().lanes();
    String expected = System.getProperty("tensafe.test.expected-lanes");
    if (expected != null) {
      assertEquals(Integer.parseInt(expected), lanes);
    } else {
      assertTrue(lanes >= 4 && Integer.bitCount(lanes) == 1, "lanes: " + lanes);
    }
    assertEquals(2 * lanes, Bf16VectorLoops.BLOCK);
  }

  @Test
  void productInto_oddShapes_matchesTheDoubleLoopWithinSummationError() {
    int block = Bf16VectorLoops.BLOCK;
    int[][] shapes = {
      {1, 1},
      {1, 37},
      {37, 1},
      {3, block},
      {5, block - 1},
      {7, block + 1},
      {4, 3 * block + 7},
      {9, 2 * block},
      {37, 101},
      {263, 517}, // enough work to split over threads; 263 = 65·4 + 3 rows
      {6, 1031} // at 70 tokens the panel loops take its columns in two chunks
    };
    assertTrue(Bf16PanelLoops.chunk(Bf16PanelLoops.padded(70), block) < 1031, "two chunks");
    SplittableRandom random = new SplittableRandom(52);
    List<Bf16Loops> loops = List.of(new Bf16VectorLoops(), new Bf16ScalarLoops());
    List<ProductThreads> threads = List.of(new ProductThreads(1), new ProductThreads(3));
    for (int[] shape : shapes) {
      Bf16Matrix m = matrix(shape[0], shape[1], random);
      // 1: one token; 3: dot products; 16, 17, 40, 70: the panel loops (Bf16PanelLoops.MIN_TOKENS),
      // with full register tiles, single vectors of tokens and padded tokens
      for (int tokens : new int[] {1, 3, Bf16PanelLoops.MIN_TOKENS, 17, 40, 70}) {
        float[] x = inputs(tokens * shape[1], random);
        for (Bf16Loops l : loops) {
          for (ProductThreads t : threads) {
            float[] y = new float[tokens * shape[0]];
            m.productInto(x, tokens, y, l, t);
            assertWithinSummationError(
                m,
                x,
                tokens,
                y,
                l.describe()
                    + ", "
                    + t.size()
                    + " thread(s), "
                    + shape[0]
                    + " x "
                    + shape[1]
                    + ", "
                    + tokens
                    + " token(s)");
          }
        }
      }
    }
  }

  @Test
  void productInto_splitOverThreads_givesTheSameBitsAsOneThread() {
    SplittableRandom random = new SplittableRandom(7);
    Bf16Matrix m = matrix(1031, 300, random);
    for (int tokens : new int[] {1, 5, 70}) {
      float[] x = inputs(tokens * 300, random);
      float[] one = new float[tokens * 1031];
      float[] three = new float[tokens * 1031];
      Bf16Loops loops = new Bf16VectorLoops();
      m.productInto(x, tokens, one, loops, new ProductThreads(1));
      m.productInto(x, tokens, three, loops, new ProductThreads(3));
      assertArrayEquals(one, three, 0f, tokens + " token(s)");
    }
  }

  @Test
  void rowInto_widensEveryValueExactly() {
    short[] bits = {0x3FC0, (short) 0xBF80, 0x0001, (short) 0x8080, 0x7F80, 0x0000};
    Bf16Matrix m = Bf16Matrix.of(arena, tensor(2, 3, bits));
    float[] out = new float[6];
    m.rowInto(1, out, 0);
    m.rowInto(0, out, 3);
    assertArrayEquals(
        new float[] {
          Float.intBitsToFloat(0x80800000), Float.POSITIVE_INFINITY, 0f, 1.5f, -1f, 0x1p-133f
        },
        out);
  }

  @Test
  void of_notA2dBf16Tensor_isRefusedByName() {
    WeightTensor vector = new WeightTensor(List.of(4L), DType.BF16, new byte[8]);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Bf16Matrix.of(arena, vector));
    assertTrue(e.getMessage().contains("BF16 [4]"), e.getMessage());
  }

  @Test
  void productInto_wrongLengths_isRefused() {
    Bf16Matrix m = matrix(3, 4, new SplittableRandom(1));
    assertThrows(
        IllegalArgumentException.class, () -> m.productInto(new float[5], 1, new float[3]));
    assertThrows(
        IllegalArgumentException.class, () -> m.productInto(new float[8], 2, new float[3]));
  }

  private void assertWithinSummationError(
      Bf16Matrix m, float[] x, int tokens, float[] y, String what) {
    int rows = m.rows();
    int columns = m.columns();
    float[] row = new float[columns];
    double u = 0x1p-24;
    double gamma = (columns + 1) * u / (1 - (columns + 1) * u);
    double underflow = (2.0 * columns + 64) * 0x1p-150;
    for (int r = 0; r < rows; r++) {
      m.rowInto(r, row, 0);
      for (int t = 0; t < tokens; t++) {
        double exact = 0;
        double magnitude = 0;
        for (int c = 0; c < columns; c++) {
          double term = (double) row[c] * x[t * columns + c];
          exact += term;
          magnitude += Math.abs(term);
        }
        double error = Math.abs(y[t * rows + r] - exact);
        assertTrue(
            error <= gamma * magnitude + underflow,
            what + ": row " + r + " token " + t + " is " + y[t * rows + r] + ", exact " + exact);
      }
    }
  }

  /**
   * A matrix of random BF16 values: normal of several scales, tiny, subnormal, zero, both signs.
   */
  private Bf16Matrix matrix(int rows, int columns, SplittableRandom random) {
    short[] bits = new short[rows * columns];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = randomBf16(random);
    }
    return Bf16Matrix.of(arena, tensor(rows, columns, bits));
  }

  static short randomBf16(SplittableRandom random) {
    int sign = random.nextBoolean() ? 0x8000 : 0;
    return switch (random.nextInt(10)) {
      case 0 -> (short) (sign | random.nextInt(1, 0x80)); // subnormal
      case 1 -> (short) (sign | (random.nextInt(1, 8) << 7) | random.nextInt(0x80)); // ~1e-38
      case 2 -> (short) sign; // ±0
      case 3 -> toBf16((float) (random.nextGaussian() * 1e4));
      default -> toBf16((float) (random.nextGaussian() * 0.05));
    };
  }

  /** {@code v} rounded to BF16, to nearest, ties to even. */
  static short toBf16(float v) {
    int bits = Float.floatToRawIntBits(v);
    return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
  }

  private static float[] inputs(int n, SplittableRandom random) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] =
          (float) (random.nextInt(8) == 0 ? random.nextGaussian() * 1e-30 : random.nextGaussian());
    }
    return x;
  }

  static WeightTensor tensor(int rows, int columns, short[] bits) {
    byte[] data = new byte[2 * bits.length];
    for (int i = 0; i < bits.length; i++) {
      data[2 * i] = (byte) bits[i];
      data[2 * i + 1] = (byte) (bits[i] >>> 8);
    }
    List<Long> shape = new ArrayList<>(List.of((long) rows, (long) columns));
    return new WeightTensor(shape, DType.BF16, data);
  }
}
