package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.tensafe.node.model.WeightTensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A {@link WeightMatrix} held in a DJL array: F32 tensors, F16 tensors, any tensor under {@link
 * WeightPrecision#F32}, and (only as the measured baseline of {@link HeldMatrices}, "widened F16")
 * BF16 as it was held before {@link Bf16Matrix}.
 *
 * <p>Storage: an F32 tensor is held as a DJL {@code FLOAT32} array; an F16 tensor as {@code
 * FLOAT16}, its own bytes; a BF16 tensor given to {@link #scaledHalf} as {@code FLOAT16} holding
 * {@code W·2^s}, with {@code s} chosen per tensor so that its largest finite magnitude lands in
 * [2^15, 65504] (DJL 0.35.1's PyTorch engine has no BF16 arrays: creating one aborts the JVM).
 * Every BF16 value of magnitude at least {@code max|W|·2^-32} is held exactly; a smaller one is
 * rounded to F16's subnormal grid, an absolute error of at most {@code max|W|·2^-40}.
 * Half-precision matrices thus take two bytes per value, half of F32.
 *
 * <p>Arithmetic is F32 throughout: a half-precision matrix is widened (exactly) to F32 for each
 * product, at most {@link #SLICE_VALUES} values at a time, into reused {@link WideningBuffers}, and
 * the product multiplied by {@code 2^-s} (exact). An F32 matrix takes the same {@code matMul} on
 * the same array as before half precision was held, so an F32 model's numbers are unchanged.
 *
 * <p>Invariant: {@code transposed} is a view of {@code values}; both live in the decoder's manager.
 *
 * @param values {@code (out, in)}: FLOAT32 or FLOAT16
 * @param transposed {@code (in, out)} view of {@code values}
 * @param unscale {@code 2^-s}: 1 except for BF16 tensors
 * @param buffers where half-precision slices are widened
 */
record DjlWeights(NDArray values, NDArray transposed, float unscale, WideningBuffers buffers)
    implements WeightMatrix {

  /**
   * The most values one product widens to F32 at once (16 Mi values, 64 MiB of F32): at the 1.5B
   * shape only the vocabulary head is sliced (slicing the layers' matrices too measured slower).
   */
  static final int SLICE_VALUES = 1 << 24;

  /** Largest finite F16 value. */
  private static final float F16_MAX = 65504f;

  /**
   * Copies {@code t} into {@code manager} in the storage its type gets (see the class comment), or
   * widened to F32 at once when {@code precision} is {@link WeightPrecision#F32}.
   */
  static DjlWeights of(
      NDManager manager, WeightTensor t, WideningBuffers buffers, WeightPrecision precision) {
    long[] dims = t.shape().stream().mapToLong(Long::longValue).toArray();
    Shape shape = new Shape(dims);
    NDArray values;
    float unscale = 1f;
    if (precision == WeightPrecision.F32 && t.dtype() != io.tensafe.tgsp.safetensors.DType.F32) {
      values = manager.create(t.floats(), shape);
      return new DjlWeights(values, values.transpose(), unscale, buffers);
    }
    switch (t.dtype()) {
      case F32 -> values = manager.create(t.bytes().asFloatBuffer(), shape);
      case F16 -> {
        ByteBuffer in = t.bytes();
        ByteBuffer out = direct(t.elementCount());
        for (int i = 0; i < t.elementCount(); i++) {
          out.putShort(2 * i, in.getShort(2 * i));
        }
        values = manager.create(out, shape, DataType.FLOAT16);
      }
      case BF16 -> {
        int s = scaleExponent(t);
        float scale = Math.scalb(1f, s);
        ByteBuffer out = direct(t.elementCount());
        for (int i = 0; i < t.elementCount(); i++) {
          out.putShort(2 * i, Float.floatToFloat16(t.get(i) * scale));
        }
        values = manager.create(out, shape, DataType.FLOAT16);
        unscale = Math.scalb(1f, -s);
      }
      default -> throw new IllegalArgumentException("weights of type " + t.dtype());
    }
    return new DjlWeights(values, values.transpose(), unscale, buffers);
  }

  /**
   * {@code t} (BF16) as {@code FLOAT16} of {@code W·2^s}, widened per product: how BF16 was held
   * before {@link Bf16Matrix}, kept as the baseline {@code ./tensafe bench node --matrices}
   * measures.
   */
  static DjlWeights scaledHalf(NDManager manager, WeightTensor t, WideningBuffers buffers) {
    return of(manager, t, buffers, WeightPrecision.HALF);
  }

  /**
   * The {@code s} for a BF16 tensor: its largest finite magnitude times {@code 2^s} lies in [2^15,
   * 65504] (0 for a tensor with no finite non-zero value), kept within F32's normal exponents, so
   * that a tensor whose largest magnitude is below 2^-111 gets less. Range: [-112, 126].
   */
  static int scaleExponent(WeightTensor t) {
    float max = 0;
    for (int i = 0; i < t.elementCount(); i++) {
      float v = Math.abs(t.get(i));
      if (v > max && Float.isFinite(v)) {
        max = v;
      }
    }
    // BF16's largest mantissa, 1.9921875, times 2^15 is 65280 ≤ 65504.
    return max == 0 ? 0 : Math.min(126, 15 - Math.getExponent(max));
  }

  /** Whether the matrix is held in two bytes per value. */
  boolean half() {
    return values.getDataType() == DataType.FLOAT16;
  }

  @Override
  public NDArray product(NDArray x) {
    return product(x, SLICE_VALUES);
  }

  /** As {@link #product(NDArray)}, widening at most {@code sliceValues} values at a time. */
  NDArray product(NDArray x, int sliceValues) {
    if (!half()) {
      return x.matMul(transposed);
    }
    long out = values.getShape().get(0);
    long in = values.getShape().get(1);
    long sliceRows = Math.min(out, Math.max(1, sliceValues / in));
    NDArray y;
    if (sliceRows == out) {
      try (WideningBuffers.Widened wide = buffers.widen(values, out);
          NDArray wideT = wide.values().transpose()) {
        y = x.matMul(wideT);
      }
    } else {
      NDList parts = new NDList();
      for (long from = 0; from < out; from += sliceRows) {
        long to = Math.min(out, from + sliceRows);
        try (NDArray slice = values.get(new NDIndex(from + ":" + to));
            WideningBuffers.Widened wide = buffers.widen(slice, sliceRows);
            NDArray wideT = wide.values().transpose()) {
          parts.add(x.matMul(wideT));
        }
      }
      y = NDArrays.concat(parts, -1);
      parts.close();
    }
    return unscale == 1f ? y : y.mul(unscale);
  }

  @Override
  public NDArray rows(NDManager step, NDArray ids) {
    NDArray picked = values.get(step, new NDIndex("{}", ids));
    if (!half()) {
      return picked;
    }
    NDArray wide = picked.toType(DataType.FLOAT32, false);
    return unscale == 1f ? wide : wide.mul(unscale);
  }

  @Override
  public long heldBytes() {
    return values.getShape().size() * values.getDataType().getNumOfBytes();
  }

  /** A direct buffer of {@code count} two-byte values in the platform's order, as DJL reads it. */
  private static ByteBuffer direct(int count) {
    return ByteBuffer.allocateDirect(Math.multiplyExact(2, count)).order(ByteOrder.nativeOrder());
  }
}
