package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import io.tensafe.node.model.WeightTensor;
import io.tensafe.tgsp.safetensors.DType;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Int8Matrix} (measured by the matrix bench only): every value within half a step of its
 * row's scale, and products on odd shapes (rows and columns not multiples of the lanes, one row,
 * one column, one and three tokens, rows split over threads) equal to a double-precision loop over
 * the dequantised values within F32 summation error.
 */
class Int8MatrixTest {
  private final Arena arena = Arena.ofShared();
  private final NDManager manager = NDManager.newBaseManager("PyTorch");

  @AfterEach
  void close() {
    manager.close();
    arena.close();
  }

  @Test
  void quantise_everyValueWithinHalfAStep_zeroRowsStayZero() {
    SplittableRandom random = new SplittableRandom(8);
    WeightTensor t = bf16(5, 37, random);
    float[] values = t.floats();
    java.util.Arrays.fill(values, 2 * 37, 3 * 37, 0f); // row 2 of zeros
    WeightTensor withZeros = f32(5, 37, values);
    Int8Matrix m = Int8Matrix.quantise(arena, withZeros);
    assertEquals(0f, m.scales()[2]);
    for (int r = 0; r < 5; r++) {
      for (int c = 0; c < 37; c++) {
        float back =
            m.scales()[r] * m.values().get(java.lang.foreign.ValueLayout.JAVA_BYTE, r * 37L + c);
        assertTrue(
            Math.abs(back - values[r * 37 + c]) <= m.scales()[r] / 2 * (1 + 1e-6f),
            "row " + r + " column " + c);
      }
    }
  }

  @Test
  void product_oddShapes_matchesTheDequantisedDoubleLoop() {
    SplittableRandom random = new SplittableRandom(52);
    int[][] shapes = {{1, 1}, {1, 37}, {37, 1}, {7, 17}, {5, 33}, {263, 517}};
    for (int[] shape : shapes) {
      Int8Matrix m = Int8Matrix.quantise(arena, bf16(shape[0], shape[1], random));
      for (int tokens : new int[] {1, 3}) {
        float[] x = new float[tokens * shape[1]];
        for (int i = 0; i < x.length; i++) {
          x[i] = (float) random.nextGaussian();
        }
        float[] y;
        try (NDManager step = manager.newSubManager()) {
          NDArray out = m.product(step.create(x, new Shape(tokens, shape[1])));
          y = out.toFloatArray();
        }
        for (int r = 0; r < shape[0]; r++) {
          for (int t = 0; t < tokens; t++) {
            double exact = 0;
            double magnitude = 0;
            for (int c = 0; c < shape[1]; c++) {
              double term =
                  (double)
                          m.values()
                              .get(java.lang.foreign.ValueLayout.JAVA_BYTE, (long) r * shape[1] + c)
                      * x[t * shape[1] + c];
              exact += term;
              magnitude += Math.abs(term);
            }
            exact *= m.scales()[r];
            magnitude *= m.scales()[r];
            double bound = (shape[1] + 2) * 0x1p-24 * 1.01 * magnitude + 1e-30;
            assertTrue(
                Math.abs(y[t * shape[0] + r] - exact) <= bound,
                shape[0] + " x " + shape[1] + ", row " + r + ", token " + t);
          }
        }
      }
    }
  }

  @Test
  void quantise_notFinite_isRefusedByName() {
    float[] values = {1f, Float.NaN};
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Int8Matrix.quantise(arena, f32(1, 2, values)));
    assertTrue(e.getMessage().contains("row 0"), e.getMessage());
  }

  private static WeightTensor bf16(int rows, int columns, SplittableRandom random) {
    byte[] data = new byte[2 * rows * columns];
    for (int i = 0; i < rows * columns; i++) {
      short b = Bf16MatrixTest.toBf16((float) (random.nextGaussian() * 0.05));
      data[2 * i] = (byte) b;
      data[2 * i + 1] = (byte) (b >>> 8);
    }
    return new WeightTensor(List.of((long) rows, (long) columns), DType.BF16, data);
  }

  private static WeightTensor f32(int rows, int columns, float[] values) {
    byte[] data = new byte[4 * values.length];
    java.nio.ByteBuffer.wrap(data)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .asFloatBuffer()
        .put(values);
    return new WeightTensor(List.of((long) rows, (long) columns), DType.F32, data);
  }
}
