package io.tensafe.kernels.helora;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * How {@link HostedCoefficientOperator} overlaps host and backend work: a large batch goes to the
 * backend in chunks, each chunk's call running on a backend thread while the caller prepares the
 * next. Thread-safe; the threads are daemons, created as calls need them.
 */
final class BackendPipeline {
  /** Tokens per backend call when a batch is split to overlap host and backend work. */
  private static final int PIPELINE_CHUNK = 64;

  /** Measurement override of the chunk size ({@code 0}: never split); unset in production. */
  private static final int CHUNK_OVERRIDE = Integer.getInteger("tensafe.helora.chunk", -1);

  /** Runs backend calls of pipelined chunks. */
  private static final ExecutorService BACKEND_CALLS =
      Executors.newCachedThreadPool(
          Thread.ofPlatform().name("he-lora-backend-", 0).daemon().factory());

  private BackendPipeline() {}

  /**
   * Tokens per backend call: batches of up to 127 tokens are not split (measured on an H100: at 64
   * tokens, splitting cost more per call than the overlap saved); larger ones go in chunks of 64.
   */
  static int chunk(int tokens) {
    if (CHUNK_OVERRIDE >= 0) {
      return CHUNK_OVERRIDE == 0 ? tokens : Math.min(tokens, CHUNK_OVERRIDE);
    }
    return tokens < 2 * PIPELINE_CHUNK ? tokens : PIPELINE_CHUNK;
  }

  /** Runs {@code call} on a backend thread. */
  static <T> CompletableFuture<T> submit(Supplier<T> call) {
    return CompletableFuture.supplyAsync(call, BACKEND_CALLS);
  }

  /** The chunk's output, rethrowing a backend failure as it was thrown. */
  static <T> T join(CompletableFuture<T> chunk) {
    try {
      return chunk.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error cause) {
        throw cause;
      }
      throw e;
    }
  }
}
