package io.tensafe.kernels.bench;

import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.backend.HostedLoraCall;
import io.tensafe.kernels.backend.HostedLoraOutput;
import io.tensafe.kernels.backend.HostedLoraWeights;
import io.tensafe.kernels.backend.LimbBatch;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A backend that forwards every call and adds the wall time of {@link #hostedLora} and {@link
 * #hostedLoraAll} calls to a counter, so a benchmark can split an operator's time into host work
 * (encoding, sampling) and backend work (ring arithmetic, transfers).
 */
final class TimedBackend implements HeBackend {
  private final HeBackend delegate;
  private final AtomicLong hostedLoraNanos = new AtomicLong();

  TimedBackend(HeBackend delegate) {
    this.delegate = delegate;
  }

  /**
   * Nanoseconds spent in {@link #hostedLora} since the last {@link #reset}, summed over threads.
   */
  long hostedLoraNanos() {
    return hostedLoraNanos.get();
  }

  void reset() {
    hostedLoraNanos.set(0);
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public void forwardNttInPlace(LimbBatch batch) {
    delegate.forwardNttInPlace(batch);
  }

  @Override
  public void inverseNttInPlace(LimbBatch batch) {
    delegate.inverseNttInPlace(batch);
  }

  @Override
  public List<HostedLoraOutput> hostedLoraAll(List<HostedLoraCall> calls) {
    long start = System.nanoTime();
    try {
      return delegate.hostedLoraAll(calls);
    } finally {
      hostedLoraNanos.addAndGet(System.nanoTime() - start);
    }
  }

  @Override
  public HostedLoraOutput hostedLora(HostedLoraWeights weights, long[][] messages, long[][] c1) {
    long start = System.nanoTime();
    try {
      return delegate.hostedLora(weights, messages, c1);
    } finally {
      hostedLoraNanos.addAndGet(System.nanoTime() - start);
    }
  }
}
