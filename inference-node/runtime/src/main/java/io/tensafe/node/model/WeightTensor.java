package io.tensafe.node.model;

import io.tensafe.tgsp.safetensors.DType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A weight tensor as its model folder stores it: row-major, little-endian, in the file's element
 * type (F32, F16 or BF16; an F64 tensor is rounded to F32 when read). Half-precision weights stay
 * two bytes per value here; whoever computes with them widens them ({@link #floats}, or the
 * decoder's own conversion).
 *
 * <p>Invariant: {@code dtype} is F32, F16 or BF16 and {@code data} holds exactly {@code elements ·
 * dtype.byteSize()} bytes. The bytes are owned by this record and never written after it is built.
 *
 * @param shape dimensions
 * @param dtype element type: F32, F16 or BF16
 * @param data the values' bytes; read them through {@link #bytes()}
 */
public record WeightTensor(List<Long> shape, DType dtype, byte[] data) {
  public WeightTensor {
    shape = List.copyOf(shape);
    if (dtype == DType.F64) {
      throw new IllegalArgumentException("F64 weights are held as F32");
    }
    long n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, d);
    }
    if (Math.multiplyExact(n, dtype.byteSize()) != data.length) {
      throw new IllegalArgumentException(
          data.length + " bytes do not hold shape " + shape + " of " + dtype);
    }
  }

  /** Number of values. */
  public int elementCount() {
    return data.length / dtype.byteSize();
  }

  /** A read-only little-endian view of the values' bytes, positioned at 0. */
  public ByteBuffer bytes() {
    return ByteBuffer.wrap(data).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Value {@code i} widened to F32: exact for every type held. */
  public float get(int i) {
    return switch (dtype) {
      case F32 -> Float.intBitsToFloat(littleEndian(4 * i, 4));
      case F16 -> Float.float16ToFloat((short) littleEndian(2 * i, 2));
      case BF16 -> Float.intBitsToFloat(littleEndian(2 * i, 2) << 16);
      case F64 -> throw new AssertionError("F64 is never held");
    };
  }

  /** Every value widened to F32 (exact), in a new array of {@link #elementCount()} floats. */
  public float[] floats() {
    float[] values = new float[elementCount()];
    for (int i = 0; i < values.length; i++) {
      values[i] = get(i);
    }
    return values;
  }

  /** Whether {@code other} holds the same shape, type and bytes. */
  public boolean sameAs(WeightTensor other) {
    return shape.equals(other.shape)
        && dtype == other.dtype
        && java.util.Arrays.equals(data, other.data);
  }

  private int littleEndian(int offset, int length) {
    int v = 0;
    for (int b = length - 1; b >= 0; b--) {
      v = (v << 8) | (data[offset + b] & 0xFF);
    }
    return v;
  }
}
