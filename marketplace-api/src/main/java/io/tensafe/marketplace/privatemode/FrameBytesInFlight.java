package io.tensafe.marketplace.privatemode;

import io.tensafe.marketplace.problem.ApiProblem;
import io.tensafe.marketplace.problem.ProblemKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of private-session frames this replica has in flight, all sessions together, bounded by
 * {@code tensafe.gateway.max-frame-bytes-in-flight}. A frame is admitted on its declared length,
 * before any byte of its body is read; its node's answer is added once read (never refused then:
 * the node has done the work); both are given back when the answer has been handed back.
 *
 * <p>Invariant: the total never exceeds the bound except by the answers of frames already admitted,
 * or by one frame admitted while nothing else was in flight (so a frame larger than the bound is
 * still served, alone). Thread-safe.
 */
@ApplicationScoped
public class FrameBytesInFlight {
  @Inject PrivateModeConfig privateMode;

  private final AtomicLong total = new AtomicLong();

  /** One frame's bytes, given back by {@link #close} (once; later calls do nothing). */
  public final class Held implements AutoCloseable {
    private long bytes;

    private Held(long bytes) {
      this.bytes = bytes;
    }

    /** Adds {@code more} bytes (the answer) to this frame's, past the bound if need be. */
    public void add(long more) {
      if (more < 0) {
        throw new IllegalArgumentException("bytes must be non-negative, was " + more);
      }
      total.addAndGet(more);
      bytes += more;
    }

    @Override
    public void close() {
      total.addAndGet(-bytes);
      bytes = 0;
    }
  }

  /**
   * Admits a frame of {@code declaredBytes}.
   *
   * @throws ApiProblem 503 with Retry-After when it would take the total past the bound
   */
  public Held admit(long declaredBytes) {
    if (declaredBytes < 0) {
      throw new IllegalArgumentException("bytes must be non-negative, was " + declaredBytes);
    }
    long max = privateMode.maxFrameBytesInFlight();
    while (true) {
      long now = total.get();
      if (now > 0 && now + declaredBytes > max) {
        throw new ApiProblem(
            ProblemKind.SERVICE_BUSY,
            "this marketplace replica already relays "
                + now
                + " bytes of private-session frames, and a frame of "
                + declaredBytes
                + " would pass its bound of "
                + max
                + "; send it again shortly",
            1);
      }
      if (total.compareAndSet(now, now + declaredBytes)) {
        return new Held(declaredBytes);
      }
    }
  }

  /** Bytes in flight now. */
  public long total() {
    return total.get();
  }
}
