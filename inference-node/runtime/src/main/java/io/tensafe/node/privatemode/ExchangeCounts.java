package io.tensafe.node.privatemode;

import java.util.concurrent.atomic.AtomicLong;

/** What a client's frames cost so far: round trips, bytes each way, and time waiting on them. */
public final class ExchangeCounts {
  private final AtomicLong roundTrips = new AtomicLong();
  private final AtomicLong bytesSent = new AtomicLong();
  private final AtomicLong bytesReceived = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();

  void exchanged(long sent, long received, long elapsedNanos) {
    roundTrips.incrementAndGet();
    bytesSent.addAndGet(sent);
    bytesReceived.addAndGet(received);
    nanos.addAndGet(elapsedNanos);
  }

  public long roundTrips() {
    return roundTrips.get();
  }

  public long bytesSent() {
    return bytesSent.get();
  }

  public long bytesReceived() {
    return bytesReceived.get();
  }

  /** Wall time from sending each frame to holding its answer, in nanoseconds. */
  public long exchangeNanos() {
    return nanos.get();
  }
}
