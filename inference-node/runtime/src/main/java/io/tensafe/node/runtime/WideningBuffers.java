package io.tensafe.node.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import java.util.HashMap;
import java.util.Map;

/**
 * F32 buffers that F16 weight slices ({@link DjlWeights}) are widened into before a product,
 * reused: one per slice shape per thread, so a decode step allocates no large array (allocating and
 * freeing one per product cost three times the widening itself, in page faults). At the
 * Qwen2.5-1.5B shape an F16 model's decoding thread holds about 190 MiB of them: q/o, k/v, gate/up,
 * down and one head slice of {@link DjlWeights#SLICE_VALUES} values. BF16 matrices ({@link
 * Bf16Matrix}) need none.
 *
 * <p>Invariant: a buffer handed out is used by its thread only, and only until that thread's next
 * call for the same shape. The buffers live in the decoder's manager and are freed with it.
 */
final class WideningBuffers {
  private final NDManager manager;
  private final ThreadLocal<Map<Shape, NDArray>> buffers = ThreadLocal.withInitial(HashMap::new);

  WideningBuffers(NDManager manager) {
    this.manager = manager;
  }

  /**
   * {@code half} widened to F32 (exact), in this thread's buffer of shape {@code (bufferRows, in)}
   * when {@code half} has {@code bufferRows} rows, else in a view of its first rows that the caller
   * closes (as it may close the result in every case: closing a full buffer's handle is not done).
   *
   * @param half {@code (rows, in)} with {@code rows ≤ bufferRows}
   */
  Widened widen(NDArray half, long bufferRows) {
    long rows = half.getShape().get(0);
    Shape shape = new Shape(bufferRows, half.getShape().get(1));
    NDArray buffer = buffers.get().computeIfAbsent(shape, manager::zeros);
    NDArray target = rows == bufferRows ? buffer : buffer.get(new NDIndex("0:" + rows));
    target.set(new NDIndex(":"), half);
    return new Widened(target, target != buffer);
  }

  /** A widened slice; {@link #close} frees only a view, never the reused buffer. */
  record Widened(NDArray values, boolean view) implements AutoCloseable {
    @Override
    public void close() {
      if (view) {
        values.close();
      }
    }
  }
}
