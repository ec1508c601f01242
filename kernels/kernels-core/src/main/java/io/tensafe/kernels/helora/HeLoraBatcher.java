package io.tensafe.kernels.helora;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Gathers HE-LoRA requests from concurrent callers (requests of many users, many sites) into few
 * {@link HeLoraOperator#applyAll} calls, so a GPU backend sees large batches. One dispatcher thread
 * takes the first waiting request, then keeps taking requests until {@code maxTokens} tokens are
 * gathered or {@code maxWait} has passed since the first, and runs them as one unit.
 *
 * <p>Invariants: every submitted request completes exactly once, with its own result or its own
 * error; a request whose inputs are malformed fails at {@link #submit} and never joins a batch, so
 * it cannot fail others. Thread-safe. {@link #close} fails the requests still waiting.
 */
public final class HeLoraBatcher implements AutoCloseable {
  private final HeLoraOperator operator;
  private final int maxTokens;
  private final long maxWaitNanos;
  private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Thread dispatcher;
  private volatile boolean closed;

  private record Pending(
      HeLoraOperator.SiteInputs request, CompletableFuture<HeLoraResult> result) {}

  /**
   * @param maxTokens tokens gathered into one unit at most, in [1, 65536] (a single larger request
   *     still runs, alone)
   * @param maxWait longest a request waits for others to join it, in [0, 1 s]
   */
  public HeLoraBatcher(HeLoraOperator operator, int maxTokens, Duration maxWait) {
    if (maxTokens < 1 || maxTokens > 1 << 16) {
      throw new IllegalArgumentException("maxTokens must be in [1, 65536], was " + maxTokens);
    }
    if (maxWait.isNegative() || maxWait.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException("maxWait must be in [0, 1 s], was " + maxWait);
    }
    this.operator = operator;
    this.maxTokens = maxTokens;
    this.maxWaitNanos = maxWait.toNanos();
    this.dispatcher = Thread.ofPlatform().name("he-lora-batcher").daemon().start(this::dispatch);
  }

  /**
   * Queues {@code inputs} for {@code site}; the future completes with what {@link
   * HeLoraOperator#apply} would return.
   *
   * @throws IllegalArgumentException at once if an input has the wrong length or a non-finite value
   * @throws IllegalStateException if the batcher is closed
   */
  public CompletableFuture<HeLoraResult> submit(PreparedSite site, double[][] inputs) {
    for (int t = 0; t < inputs.length; t++) {
      RowChecks.maxAbs(inputs[t], site.dimension(), t);
    }
    CompletableFuture<HeLoraResult> result = new CompletableFuture<>();
    synchronized (this) { // close() drains only after every add that saw it open
      if (closed) {
        throw new IllegalStateException("the HE-LoRA batcher is closed");
      }
      queue.add(new Pending(new HeLoraOperator.SiteInputs(site, inputs.clone()), result));
    }
    return result;
  }

  private void dispatch() {
    Pending carried = null; // taken from the queue but too large for the last unit
    while (!closed) {
      List<Pending> batch = new ArrayList<>();
      try {
        Pending first = carried != null ? carried : queue.poll(100, TimeUnit.MILLISECONDS);
        carried = null;
        if (first == null) {
          continue;
        }
        batch.add(first);
        int tokens = first.request().inputs().length;
        long deadline = System.nanoTime() + maxWaitNanos;
        while (tokens < maxTokens) {
          Pending next =
              queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          if (next == null) {
            break;
          }
          if (tokens + next.request().inputs().length > maxTokens) {
            carried = next; // it starts the next unit
            break;
          }
          batch.add(next);
          tokens += next.request().inputs().length;
        }
      } catch (InterruptedException e) {
        fail(batch, new IllegalStateException("the HE-LoRA batcher was interrupted", e));
        if (carried != null) {
          fail(List.of(carried), new IllegalStateException("the HE-LoRA batcher was closed"));
        }
        return;
      }
      run(batch);
    }
    if (carried != null) {
      fail(List.of(carried), new IllegalStateException("the HE-LoRA batcher was closed"));
    }
  }

  private void run(List<Pending> batch) {
    List<HeLoraOperator.SiteInputs> requests = new ArrayList<>(batch.size());
    for (Pending p : batch) {
      requests.add(p.request());
    }
    try {
      List<HeLoraResult> results = operator.applyAll(requests);
      for (int i = 0; i < batch.size(); i++) {
        batch.get(i).result().complete(results.get(i));
      }
    } catch (RuntimeException | Error e) {
      fail(batch, e);
    }
  }

  private static void fail(List<Pending> batch, Throwable error) {
    for (Pending p : batch) {
      p.result().completeExceptionally(error);
    }
  }

  /** Stops the dispatcher; requests still queued fail with {@link IllegalStateException}. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    dispatcher.interrupt();
    try {
      dispatcher.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<Pending> left = new ArrayList<>();
    queue.drainTo(left);
    fail(left, new IllegalStateException("the HE-LoRA batcher was closed"));
  }
}
