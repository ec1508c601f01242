package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.tensafe.node.model.WeightTensor;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.Tensor;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WeightMatrixTest {
  private NDManager manager;
  private Arena arena;

  @BeforeEach
  void open() {
    System.setProperty("ai.djl.offline", "true");
    manager = NDManager.newBaseManager("PyTorch");
    arena = Arena.ofShared();
  }

  @AfterEach
  void close() {
    manager.close();
    arena.close();
  }

  @Test
  void product_bf16BeyondF16Range_equalsTheDoubleProductOfTheBf16Values() {
    // Magnitudes from 1e-30 to 1e30: F16 holds neither end; two-byte BF16 holds every value.
    double[] w = new double[6 * 5];
    SplittableRandom random = new SplittableRandom(5);
    for (int i = 0; i < w.length; i++) {
      w[i] = random.nextGaussian() * Math.pow(10, (i % 6) * 12 - 30);
    }
    WeightTensor t = bf16(List.of(6L, 5L), w);
    float[] x = {0.5f, -1.25f, 2f, 0.125f, -3f};
    WeightMatrix m = WeightMatrix.of(manager, arena, t, new WideningBuffers(manager));
    assertInstanceOf(Bf16Matrix.class, m);
    float[] y = product(m, x);
    for (int o = 0; o < 6; o++) {
      double expected = 0;
      double magnitude = 0;
      for (int i = 0; i < 5; i++) {
        expected += (double) t.get(o * 5 + i) * x[i];
        magnitude += Math.abs((double) t.get(o * 5 + i) * x[i]);
      }
      assertEquals(expected, y[o], magnitude * 1e-6, "row " + o);
    }
  }

  @Test
  void product_bf16Matrix_matchesTheF32PathWithinSummationError() {
    int rows = 37;
    int columns = 100;
    double[] w = new double[rows * columns];
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < w.length; i++) {
      w[i] = random.nextGaussian() * 0.02;
    }
    WeightTensor t = bf16(List.of((long) rows, (long) columns), w);
    WideningBuffers buffers = new WideningBuffers(manager);
    WeightMatrix two = WeightMatrix.of(manager, arena, t, buffers);
    WeightMatrix wide = WeightMatrix.of(manager, arena, t, buffers, WeightPrecision.F32);
    assertInstanceOf(DjlWeights.class, wide);
    float[] x = new float[3 * columns];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) random.nextGaussian();
    }
    NDArray input = manager.create(x, new Shape(1, 3, columns));
    NDArray y = two.product(input);
    assertEquals(new Shape(1, 3, rows), y.getShape());
    float[] expected = wide.product(input).toFloatArray();
    float[] actual = y.toFloatArray();
    // Both sum the same exact F32 products in F32; γ(columns + 1)·Σ|w·x| bounds each one's error.
    double gamma = 2 * (columns + 1) * 0x1p-24;
    for (int i = 0; i < actual.length; i++) {
      double magnitude = 0;
      for (int c = 0; c < columns; c++) {
        magnitude += Math.abs(t.get((i % rows) * columns + c) * x[(i / rows) * columns + c]);
      }
      assertEquals(expected[i], actual[i], gamma * magnitude, "output " + i);
    }
  }

  @Test
  void product_slicedHalfMatrix_equalsUnsliced() {
    double[] w = new double[37 * 16];
    SplittableRandom random = new SplittableRandom(9);
    for (int i = 0; i < w.length; i++) {
      w[i] = random.nextGaussian() * 0.02;
    }
    DjlWeights m =
        DjlWeights.scaledHalf(manager, bf16(List.of(37L, 16L), w), new WideningBuffers(manager));
    float[] x = new float[3 * 16];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) random.nextGaussian();
    }
    float[] whole = product(m, x, DjlWeights.SLICE_VALUES);
    float[] sliced = product(m, x, 5 * 16); // 8 slices, the last of 2 rows
    assertEquals(3 * 37, sliced.length);
    assertArrayEquals(whole, sliced, 1e-6f);
  }

  @Test
  void of_eachType_holdsF32AsF32AndHalvesInTwoBytes() {
    double[] w = {1.5, -0.25, 3, 0.0625};
    WideningBuffers buffers = new WideningBuffers(manager);
    DjlWeights f32 = assertInstanceOf(DjlWeights.class, of(held(DType.F32, w), buffers));
    assertEquals(DataType.FLOAT32, f32.values().getDataType());
    DjlWeights f16 = assertInstanceOf(DjlWeights.class, of(held(DType.F16, w), buffers));
    assertEquals(DataType.FLOAT16, f16.values().getDataType());
    assertEquals(1f, f16.unscale());
    assertEquals(8, f16.heldBytes());
    Bf16Matrix bf16 = assertInstanceOf(Bf16Matrix.class, of(held(DType.BF16, w), buffers));
    assertEquals(8, bf16.heldBytes());
    float[] rows = bf16.rows(manager, manager.create(new long[] {1, 0})).toFloatArray();
    assertArrayEquals(new float[] {3f, 0.0625f, 1.5f, -0.25f}, rows);
    DjlWeights widened =
        assertInstanceOf(
            DjlWeights.class,
            WeightMatrix.of(manager, arena, held(DType.BF16, w), buffers, WeightPrecision.F32));
    assertEquals(DataType.FLOAT32, widened.values().getDataType());
    DjlWeights baseline = DjlWeights.scaledHalf(manager, held(DType.BF16, w), buffers);
    assertTrue(baseline.half());
    assertEquals(Math.scalb(1f, -14), baseline.unscale()); // 3 · 2^14 lies in [2^15, 65504]
  }

  private WeightMatrix of(WeightTensor t, WideningBuffers buffers) {
    return WeightMatrix.of(manager, arena, t, buffers);
  }

  /** {@code m}'s product with one token {@code x}. */
  private float[] product(WeightMatrix m, float[] x) {
    return m.product(manager.create(x, new Shape(1, x.length))).toFloatArray();
  }

  private float[] product(DjlWeights m, float[] x, int sliceValues) {
    long in = m.values().getShape().get(1);
    NDArray input = manager.create(x, new Shape(x.length / in, in));
    return m.product(input, sliceValues).toFloatArray();
  }

  private static WeightTensor bf16(List<Long> shape, double[] values) {
    Tensor t = Tensor.of("w", DType.BF16, shape, values);
    return new WeightTensor(t.shape(), t.dtype(), t.data());
  }

  private static WeightTensor held(DType dtype, double[] values) {
    Tensor t = Tensor.of("w", dtype, List.of(2L, 2L), values);
    return new WeightTensor(t.shape(), t.dtype(), t.data());
  }
}
