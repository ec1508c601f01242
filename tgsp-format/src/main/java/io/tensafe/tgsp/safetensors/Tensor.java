package io.tensafe.tgsp.safetensors;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A tensor held in memory: its name, type, shape and little-endian data bytes (the safetensors
 * layout). Values are converted on the way in and out; F16 and BF16 are rounded to nearest even.
 *
 * @param data exactly {@code elements · dtype.byteSize()} bytes; owned by this record, not copied
 */
public record Tensor(String name, DType dtype, List<Long> shape, byte[] data) {
  public Tensor {
    shape = List.copyOf(shape);
    long elements = 1;
    for (long d : shape) {
      if (d < 0) {
        throw new IllegalArgumentException("negative dimension in " + shape);
      }
      elements = Math.multiplyExact(elements, d);
    }
    if (elements * dtype.byteSize() != data.length) {
      throw new IllegalArgumentException(
          name + ": " + data.length + " bytes do not hold " + elements + " " + dtype + " elements");
    }
  }

  /** Encodes {@code values} (row-major) as {@code dtype}. */
  public static Tensor of(String name, DType dtype, List<Long> shape, double[] values) {
    ByteBuffer out =
        ByteBuffer.allocate(values.length * dtype.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
    for (double v : values) {
      switch (dtype) {
        case F64 -> out.putDouble(v);
        case F32 -> out.putFloat((float) v);
        case F16 -> out.putShort(Float.floatToFloat16((float) v));
        case BF16 -> out.putShort(toBfloat16((float) v));
      }
    }
    return new Tensor(name, dtype, shape, out.array());
  }

  /** The values widened to {@code double} (exact for every supported dtype). */
  public double[] values() {
    return decode(dtype, data);
  }

  /** Number of elements. */
  public int elementCount() {
    return data.length / dtype.byteSize();
  }

  /** Decodes little-endian {@code dtype} elements to doubles, exactly. */
  public static double[] decode(DType dtype, byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    double[] out = new double[bytes.length / dtype.byteSize()];
    for (int i = 0; i < out.length; i++) {
      out[i] =
          switch (dtype) {
            case F64 -> in.getDouble();
            case F32 -> in.getFloat();
            case F16 -> Float.float16ToFloat(in.getShort());
            case BF16 -> Float.intBitsToFloat(Short.toUnsignedInt(in.getShort()) << 16);
          };
    }
    return out;
  }

  /** Rounds a float to bfloat16 (round to nearest, ties to even; NaN stays NaN). */
  static short toBfloat16(float f) {
    int bits = Float.floatToRawIntBits(f);
    if (Float.isNaN(f)) {
      return (short) ((bits >>> 16) | 0x0040);
    }
    int rounded = bits + 0x7FFF + ((bits >>> 16) & 1);
    return (short) (rounded >>> 16);
  }
}
