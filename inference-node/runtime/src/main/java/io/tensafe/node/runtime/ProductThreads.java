package io.tensafe.node.runtime;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * The threads a {@link Bf16Matrix} product's rows are split over: the calling thread plus {@code
 * size − 1} helper threads, shared by every decoder in the JVM. {@code size} is the system property
 * {@value #PROPERTY}, else the processors the JVM sees (2 on the machines of docs/benchmarks.md;
 * PyTorch's own operations in the decoder use its intra-op threads, one per core, so the two never
 * run at once within one decode step).
 *
 * <p>A product's rows are cut into blocks that the caller and the helpers claim one at a time from
 * a shared counter until none is left: a helper that starts late (all busy with another request's
 * product) finds nothing and returns, so a caller never waits for a helper to be free, only for
 * blocks already claimed to finish.
 *
 * <p>Lifecycle: the helpers are daemon platform threads ({@code tensafe-product-N}), started at the
 * first product that wants them and never stopped; they hold no memory between products and do not
 * keep the JVM alive.
 *
 * <p>Invariant: {@link #forEachBlock} returns only after every block ran exactly once, and what the
 * blocks wrote is then visible to the caller (the latch orders it); a block's exception is rethrown
 * to the caller after all blocks ended.
 */
final class ProductThreads {
  /** System property that sets the threads per product (the caller included), at least 1. */
  static final String PROPERTY = "tensafe.node.product-threads";

  private final int size;
  private final ExecutorService helpers;

  /** Threads per product, {@code size ≥ 1}: the caller and {@code size − 1} helpers. */
  ProductThreads(int size) {
    if (size < 1) {
      throw new IllegalArgumentException(PROPERTY + " must be at least 1, was " + size);
    }
    this.size = size;
    AtomicInteger named = new AtomicInteger();
    this.helpers =
        size == 1
            ? null
            : Executors.newFixedThreadPool(
                size - 1,
                task -> {
                  Thread t = new Thread(task, "tensafe-product-" + named.incrementAndGet());
                  t.setDaemon(true);
                  return t;
                });
  }

  /** The JVM's shared threads (made at first use). */
  static ProductThreads shared() {
    return Shared.VALUE;
  }

  /** Threads per product, the caller included. */
  int size() {
    return size;
  }

  /**
   * Runs {@code task.accept(b)} for every {@code b} in {@code [0, blocks)}, each once, on this
   * thread and up to {@code size − 1} helpers; returns when all have ended. Interrupts do not cut
   * it short (the helpers may still be writing); they are kept on the thread.
   */
  void forEachBlock(int blocks, IntConsumer task) {
    int wanted = Math.min(size, blocks) - 1;
    if (wanted <= 0) {
      for (int b = 0; b < blocks; b++) {
        task.accept(b);
      }
      return;
    }
    Job job = new Job(blocks, task);
    for (int i = 0; i < wanted; i++) {
      helpers.execute(job::work);
    }
    job.work();
    job.await();
  }

  /** A task over rows {@code [from, to)} of a product. */
  @FunctionalInterface
  interface RowRange {
    void run(int from, int to);
  }

  /**
   * Runs {@code task} over rows {@code [0, rows)}: on this thread alone when {@code work}
   * (multiply-adds) is below {@code parallelMin}, else in blocks of a multiple of four rows (so
   * that only the last rows take a one-row loop), up to four blocks per thread, split as {@link
   * #forEachBlock} does.
   */
  void forEachRowRange(int rows, long work, long parallelMin, RowRange task) {
    int parts = work < parallelMin ? 1 : Math.min(4 * size, Math.ceilDiv(rows, 4));
    if (parts <= 1) {
      task.run(0, rows);
      return;
    }
    int blockRows = 4 * Math.ceilDiv(Math.ceilDiv(rows, parts), 4);
    forEachBlock(
        Math.ceilDiv(rows, blockRows),
        b -> task.run(b * blockRows, Math.min(rows, (b + 1) * blockRows)));
  }

  private static final class Job {
    private final int blocks;
    private final IntConsumer task;
    private final AtomicInteger next = new AtomicInteger();
    private final CountDownLatch ended;
    private volatile Throwable failure;

    Job(int blocks, IntConsumer task) {
      this.blocks = blocks;
      this.task = task;
      this.ended = new CountDownLatch(blocks);
    }

    void work() {
      for (int b = next.getAndIncrement(); b < blocks; b = next.getAndIncrement()) {
        try {
          task.accept(b);
        } catch (Throwable t) {
          failure = t;
        } finally {
          ended.countDown();
        }
      }
    }

    void await() {
      boolean interrupted = false;
      while (true) {
        try {
          ended.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      Throwable f = failure;
      if (f instanceof RuntimeException e) {
        throw e;
      }
      if (f instanceof Error e) {
        throw e;
      }
      if (f != null) {
        throw new IllegalStateException(f);
      }
    }
  }

  private static final class Shared {
    static final ProductThreads VALUE =
        new ProductThreads(
            Integer.getInteger(PROPERTY, Runtime.getRuntime().availableProcessors()));
  }
}
