package io.tensafe.kernels.cuda;

import java.nio.ByteOrder;
import java.nio.LongBuffer;
import jcuda.Pointer;
import jcuda.driver.JCudaDriver;

/**
 * Page-locked host memory for asynchronous copies, growing on demand and reused across calls. Not
 * thread-safe: each belongs to one {@link Lane}. Sizes in 64-bit words.
 */
final class PinnedBuffer {
  private Pointer pointer;
  private LongBuffer words;
  private long capacityWords;

  /** The buffer's words, at least {@code count} of them, positioned at 0. */
  LongBuffer ensure(long count) {
    if (count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a single transfer is limited to 2^31 words");
    }
    if (count > capacityWords) {
      free();
      long size = Math.min(Integer.MAX_VALUE, Math.max(count, 2 * capacityWords));
      pointer = new Pointer();
      JCudaDriver.cuMemAllocHost(pointer, size * Long.BYTES);
      words =
          pointer.getByteBuffer(0, size * Long.BYTES).order(ByteOrder.nativeOrder()).asLongBuffer();
      capacityWords = size;
    }
    words.clear();
    return words;
  }

  /** The host address of word {@code offset}. */
  Pointer at(long offset) {
    return pointer.withByteOffset(offset * Long.BYTES);
  }

  void free() {
    if (pointer != null) {
      JCudaDriver.cuMemFreeHost(pointer);
      pointer = null;
      words = null;
      capacityWords = 0;
    }
  }
}
