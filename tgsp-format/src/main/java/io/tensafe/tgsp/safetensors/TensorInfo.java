package io.tensafe.tgsp.safetensors;

import java.util.List;

/**
 * One tensor's entry in a safetensors header.
 *
 * @param name the tensor's key, unique within its file
 * @param dtype the element type
 * @param shape dimensions, each in [0, 2^31 - 1]; empty for a scalar
 * @param begin offset of the first byte, relative to the start of the data section
 * @param end offset one past the last byte; {@code end - begin = elements · dtype size}
 */
public record TensorInfo(String name, DType dtype, List<Long> shape, long begin, long end) {
  public TensorInfo {
    shape = List.copyOf(shape);
  }

  /** Number of elements: the product of the dimensions (1 for a scalar). */
  public long elementCount() {
    long n = 1;
    for (long d : shape) {
      n = Math.multiplyExact(n, d);
    }
    return n;
  }

  /** Size of the tensor's data in bytes. */
  public long byteLength() {
    return end - begin;
  }
}
