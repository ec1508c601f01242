package io.tensafe.kernels.helora;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An operator whose calls from concurrent requests share units of backend work, by combining: a
 * caller queues its call and takes the lock; whoever holds it runs every call queued so far (up to
 * {@code maxTokens} tokens) as one {@link HeLoraOperator#applyAll} and hands each caller its own
 * results. A lone caller runs its call on its own thread at once, with no hand-off; callers that
 * arrive while a unit runs are batched into the next one. If a unit fails (one caller's inputs are
 * malformed), its calls are run one by one, so each caller gets its own result or its own error.
 * Preparation goes straight to the wrapped operator. Thread-safe. (This replaced a dispatcher
 * thread that gathered callers for up to a time limit: the hand-off cost about a quarter of the HE
 * time; docs/benchmarks.md.)
 */
public final class BatchedOperator implements HeLoraOperator {
  private record Call(List<SiteInputs> requests, CompletableFuture<List<HeLoraResult>> done) {
    int tokens() {
      int n = 0;
      for (SiteInputs r : requests) {
        n += r.inputs().length;
      }
      return n;
    }
  }

  private final HeLoraOperator inner;
  private final int maxTokens;
  private final Queue<Call> queue = new ConcurrentLinkedQueue<>();
  private final ReentrantLock lock = new ReentrantLock();
  private long units;
  private long calls;

  /**
   * @param maxTokens tokens one unit takes at most, in [1, 65536] (a larger single call still runs
   *     alone)
   */
  public BatchedOperator(HeLoraOperator inner, int maxTokens) {
    if (maxTokens < 1 || maxTokens > 1 << 16) {
      throw new IllegalArgumentException("maxTokens must be in [1, 65536], was " + maxTokens);
    }
    this.inner = inner;
    this.maxTokens = maxTokens;
  }

  public HeLoraOperator inner() {
    return inner;
  }

  /** Units of backend work run and calls served so far: {@code [units, calls]}. */
  public long[] statistics() {
    lock.lock();
    try {
      return new long[] {units, calls};
    } finally {
      lock.unlock();
    }
  }

  @Override
  public PreparedSite prepare(double[][] a) {
    return inner.prepare(a);
  }

  @Override
  public HeLoraResult apply(PreparedSite site, double[][] inputs) {
    return applyAll(List.of(new SiteInputs(site, inputs))).getFirst();
  }

  @Override
  public List<HeLoraResult> applyAll(List<SiteInputs> requests) {
    Call mine = new Call(List.copyOf(requests), new CompletableFuture<>());
    queue.add(mine);
    while (!mine.done().isDone()) {
      lock.lock();
      try {
        if (!mine.done().isDone()) {
          runQueued();
        }
      } finally {
        lock.unlock();
      }
    }
    try {
      return mine.done().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** Runs queued calls as one unit (holding the lock). */
  private void runQueued() {
    List<Call> unit = new ArrayList<>();
    int tokens = 0;
    for (Call c = queue.peek(); c != null; c = queue.peek()) {
      if (!unit.isEmpty() && tokens + c.tokens() > maxTokens) {
        break;
      }
      unit.add(queue.poll());
      tokens += c.tokens();
    }
    if (unit.isEmpty()) {
      return;
    }
    units++;
    calls += unit.size();
    List<SiteInputs> all = new ArrayList<>();
    unit.forEach(c -> all.addAll(c.requests()));
    List<HeLoraResult> results;
    try {
      results = inner.applyAll(all);
    } catch (RuntimeException e) {
      for (Call c : unit) {
        try {
          c.done().complete(inner.applyAll(c.requests()));
        } catch (RuntimeException own) {
          c.done().completeExceptionally(own);
        }
      }
      return;
    }
    int at = 0;
    for (Call c : unit) {
      c.done().complete(List.copyOf(results.subList(at, at + c.requests().size())));
      at += c.requests().size();
    }
  }
}
