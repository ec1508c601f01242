package io.tensafe.node.model;

import java.util.List;

/**
 * A weight tensor widened to 32-bit floats, row-major. DJL is handed only these: a BF16 array
 * handed to DJL aborts the JVM, so half-precision weights are widened here, in Java.
 *
 * @param shape dimensions; their product is {@code values.length}
 */
public record FloatTensor(List<Long> shape, float[] values) {
  public FloatTensor {
    shape = List.copyOf(shape);
    long n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, d);
    }
    if (n != values.length) {
      throw new IllegalArgumentException(values.length + " values for shape " + shape);
    }
  }
}
