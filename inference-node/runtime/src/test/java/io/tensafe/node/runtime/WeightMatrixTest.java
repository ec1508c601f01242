package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.tensafe.node.model.WeightTensor;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.Tensor;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WeightMatrixTest {
  private NDManager manager;

  @BeforeEach
  void open() {
    System.setProperty("ai.djl.offline", "true");
    manager = NDManager.newBaseManager("PyTorch");
  }

  @AfterEach
  void close() {
    manager.close();
  }

  @Test
  void product_bf16BeyondF16Range_equalsTheDoubleProductOfTheBf16Values() {
    // Magnitudes from 1e-30 to 1e30: F16 holds neither end unscaled; the row of 1e30 sets s.
    double[] w = new double[6 * 5];
    SplittableRandom random = new SplittableRandom(5);
    for (int i = 0; i < w.length; i++) {
      w[i] = random.nextGaussian() * Math.pow(10, (i % 6) * 12 - 30);
    }
    WeightTensor t = bf16(List.of(6L, 5L), w);
    float[] x = {0.5f, -1.25f, 2f, 0.125f, -3f};
    float[] y =
        product(
            WeightMatrix.of(manager, t, new WideningBuffers(manager)),
            x,
            WeightMatrix.SLICE_VALUES);
    double largest = 0;
    for (int i = 0; i < t.elementCount(); i++) {
      largest = Math.max(largest, Math.abs(t.get(i)));
    }
    for (int o = 0; o < 6; o++) {
      double expected = 0;
      double magnitude = 0;
      double held = 0; // the documented bound on what holding in F16 may lose: max|W|·2^-40 each
      for (int i = 0; i < 5; i++) {
        expected += (double) t.get(o * 5 + i) * x[i];
        magnitude += Math.abs((double) t.get(o * 5 + i) * x[i]);
        held += largest * Math.scalb(1.0, -40) * Math.abs(x[i]);
      }
      assertEquals(expected, y[o], magnitude * 1e-6 + held, "row " + o);
    }
  }

  @Test
  void product_slicedHalfMatrix_equalsUnsliced() {
    double[] w = new double[37 * 16];
    SplittableRandom random = new SplittableRandom(9);
    for (int i = 0; i < w.length; i++) {
      w[i] = random.nextGaussian() * 0.02;
    }
    WeightMatrix m =
        WeightMatrix.of(manager, bf16(List.of(37L, 16L), w), new WideningBuffers(manager));
    float[] x = new float[3 * 16];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) random.nextGaussian();
    }
    float[] whole = product(m, x, WeightMatrix.SLICE_VALUES);
    float[] sliced = product(m, x, 5 * 16); // 8 slices, the last of 2 rows
    assertEquals(3 * 37, sliced.length);
    assertArrayEquals(whole, sliced, 1e-6f);
  }

  @Test
  void of_eachType_holdsF32AsF32AndHalvesInTwoBytes() {
    double[] w = {1.5, -0.25, 3, 0.0625};
    assertEquals(
        DataType.FLOAT32,
        WeightMatrix.of(manager, held(DType.F32, w), new WideningBuffers(manager))
            .values()
            .getDataType());
    WeightMatrix f16 = WeightMatrix.of(manager, held(DType.F16, w), new WideningBuffers(manager));
    assertEquals(DataType.FLOAT16, f16.values().getDataType());
    assertEquals(1f, f16.unscale());
    WeightMatrix bf16 = WeightMatrix.of(manager, held(DType.BF16, w), new WideningBuffers(manager));
    assertTrue(bf16.half());
    assertEquals(Math.scalb(1f, -14), bf16.unscale()); // 3 · 2^14 lies in [2^15, 65504]
    float[] rows = bf16.rows(manager, manager.create(new long[] {1, 0})).toFloatArray();
    assertArrayEquals(new float[] {3f, 0.0625f, 1.5f, -0.25f}, rows);
  }

  private float[] product(WeightMatrix m, float[] x, int sliceValues) {
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
