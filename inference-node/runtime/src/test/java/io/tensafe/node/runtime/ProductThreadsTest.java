package io.tensafe.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class ProductThreadsTest {
  @Test
  void forEachBlock_runsEveryBlockOnce_whateverTheThreads() {
    for (int size : new int[] {1, 2, 5}) {
      for (int blocks : new int[] {0, 1, 3, 100}) {
        AtomicIntegerArray runs = new AtomicIntegerArray(Math.max(1, blocks));
        new ProductThreads(size).forEachBlock(blocks, runs::incrementAndGet);
        for (int b = 0; b < blocks; b++) {
          assertEquals(1, runs.get(b), size + " threads, block " + b + " of " + blocks);
        }
      }
    }
  }

  @Test
  void forEachBlock_aBlockFails_rethrowsToTheCallerAfterTheOthersRan() {
    IllegalStateException failure = new IllegalStateException("block 7");
    AtomicIntegerArray runs = new AtomicIntegerArray(20);
    IllegalStateException thrown =
        assertThrows(
            IllegalStateException.class,
            () ->
                new ProductThreads(3)
                    .forEachBlock(
                        20,
                        b -> {
                          runs.incrementAndGet(b);
                          if (b == 7) {
                            throw failure;
                          }
                        }));
    assertSame(failure, thrown);
    for (int b = 0; b < 20; b++) {
      assertEquals(1, runs.get(b), "block " + b);
    }
  }

  @Test
  void new_lessThanOneThread_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> new ProductThreads(0));
  }
}
