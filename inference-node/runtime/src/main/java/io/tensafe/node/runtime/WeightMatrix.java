package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import io.tensafe.node.model.WeightTensor;
import java.lang.foreign.Arena;

/**
 * One weight matrix {@code W} of shape {@code (out, in)} as the decoder holds it, with the two uses
 * the decoder makes of it: the product {@code x·Wᵀ} and, for an embedding, its rows. Arithmetic is
 * F32 whatever the storage.
 *
 * <p>Storage by tensor type, under {@link WeightPrecision#HALF} (the default): BF16 as its own two
 * bytes per value, multiplied by this package's vector loops ({@link Bf16Matrix}); F16 as a DJL
 * {@code FLOAT16} array widened to F32 per product, and F32 as a DJL {@code FLOAT32} array
 * multiplied by DJL ({@link DjlWeights}). Under {@link WeightPrecision#F32} every matrix is widened
 * to F32 once, at load, and multiplied by DJL, exactly as an F32 model's.
 *
 * <p>Architecture invariant: an F32 matrix, and any matrix under {@link WeightPrecision#F32}, takes
 * the same DJL {@code matMul} on the same array as before half precision was held, so an F32
 * model's numbers never depend on this package's loops.
 */
sealed interface WeightMatrix permits DjlWeights, Bf16Matrix, Int8Matrix {
  /** As {@link #of(NDManager, Arena, WeightTensor, WideningBuffers, WeightPrecision)}, half. */
  static WeightMatrix of(NDManager manager, Arena arena, WeightTensor t, WideningBuffers buffers) {
    return of(manager, arena, t, buffers, WeightPrecision.HALF);
  }

  /**
   * {@code t} held as its type and {@code precision} say (see the class comment): a {@link
   * Bf16Matrix} in {@code arena}, or a {@link DjlWeights} in {@code manager}.
   */
  static WeightMatrix of(
      NDManager manager,
      Arena arena,
      WeightTensor t,
      WideningBuffers buffers,
      WeightPrecision precision) {
    if (precision == WeightPrecision.HALF && Bf16Matrix.holds(t)) {
      return Bf16Matrix.of(arena, t);
    }
    if (precision == WeightPrecision.INT8 && t.shape().size() == 2) {
      if (!Bf16Loops.vectorsChosen()) {
        throw new IllegalStateException(
            "int8 weights need the " + Bf16Loops.VECTOR_MODULE + " module's loops");
      }
      return Int8Matrix.quantise(arena, t);
    }
    return DjlWeights.of(manager, t, buffers, precision);
  }

  /**
   * {@code x·Wᵀ} in F32: {@code x} is {@code (…, in)} FLOAT32, the result {@code (…, out)} in x's
   * manager.
   */
  NDArray product(NDArray x);

  /**
   * {@code x·Wᵀ} for each of {@code matrices}, in order: the values {@link #product} gives on each,
   * with {@code x} read out of DJL and put in the BF16 loops' order once for all the {@link
   * Bf16Matrix}es of one width (a layer's q, k and v; its gate and up).
   */
  static NDArray[] products(NDArray x, WeightMatrix... matrices) {
    NDArray[] out = new NDArray[matrices.length];
    Bf16Matrix.Input in = null;
    for (int i = 0; i < matrices.length; i++) {
      if (matrices[i] instanceof Bf16Matrix m) {
        if (in == null || in.columns() != m.columns()) {
          in = Bf16Matrix.Input.of(x, m.columns());
        }
        out[i] = m.product(in);
      } else {
        out[i] = matrices[i].product(x);
      }
    }
    return out;
  }

  /**
   * Tokens in {@code x}, a {@code (…, columns)} array: its size over {@code columns}.
   *
   * @throws IllegalArgumentException unless {@code x}'s last dimension is {@code columns} and it
   *     holds at least one token
   */
  static int tokens(NDArray x, int columns) {
    Shape shape = x.getShape();
    int last = shape.dimension() - 1;
    if (last < 0 || shape.get(last) != columns) {
      throw new IllegalArgumentException(
          "x of shape " + shape + " does not end in this matrix's " + columns + " columns");
    }
    int tokens = Math.toIntExact(shape.size() / columns);
    if (tokens < 1) {
      throw new IllegalArgumentException("x of shape " + shape + " holds no token");
    }
    return tokens;
  }

  /**
   * {@code y}, the products of {@code x}'s tokens with a matrix of {@code rows} rows, as an array
   * of {@code x}'s shape with its last dimension {@code rows}, in {@code x}'s manager.
   */
  static NDArray result(NDArray x, float[] y, int rows) {
    long[] dims = x.getShape().getShape().clone(); // getShape() is the shape's own array
    dims[dims.length - 1] = rows;
    return x.getManager().create(y, new Shape(dims));
  }

  /** Writes row {@code row} of a matrix, widened to F32, into {@code out[at..at+columns)}. */
  @FunctionalInterface
  interface RowWriter {
    void rowInto(int row, float[] out, int at);
  }

  /**
   * Rows {@code ids} of a {@code rows × columns} matrix, each written by {@code writer}, as a
   * {@code (ids, columns)} F32 array in {@code step}.
   *
   * @throws IllegalArgumentException naming the first id outside {@code [0, rows)}
   */
  static NDArray gathered(NDManager step, NDArray ids, int rows, int columns, RowWriter writer) {
    long[] picked =
        ids.getDataType() == DataType.INT64
            ? ids.toLongArray()
            : ids.toType(DataType.INT64, false).toLongArray();
    float[] out = new float[Math.multiplyExact(picked.length, columns)];
    for (int i = 0; i < picked.length; i++) {
      if (picked[i] < 0 || picked[i] >= rows) {
        throw new IllegalArgumentException("row " + picked[i] + " is outside 0.." + (rows - 1));
      }
      writer.rowInto((int) picked[i], out, i * columns);
    }
    return step.create(out, new Shape(picked.length, columns));
  }

  /** Rows {@code ids} of {@code W} in F32, {@code (ids, in)}, in {@code step}. */
  NDArray rows(NDManager step, NDArray ids);

  /** Bytes the matrix's values take as held. */
  long heldBytes();
}
