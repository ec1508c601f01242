package io.tensafe.node.usage;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Delivers the outbox's reports to the marketplace, oldest first, on one background thread. A
 * report is removed only after the marketplace acknowledged it (200/201); a 409 (its request id is
 * held by a different report) moves it to {@code rejected/}; anything else leaves it queued and
 * retries after a backoff that doubles from {@code minBackoff} up to {@code maxBackoff}. Since the
 * marketplace records a request id once, a report sent again after a crash between its recording
 * and our removal is acknowledged without being counted twice.
 */
public final class UsageDelivery implements AutoCloseable {
  /** Sends one report; answers the status code, or throws if it could not be delivered. */
  @FunctionalInterface
  public interface Sender {
    int send(byte[] report) throws IOException;
  }

  private final UsageOutbox outbox;
  private final Sender sender;
  private final Duration minBackoff;
  private final Duration maxBackoff;
  private final Consumer<String> log;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("usage-delivery").daemon().unstarted(r));
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private Duration backoff;

  public UsageDelivery(
      UsageOutbox outbox,
      Sender sender,
      Duration minBackoff,
      Duration maxBackoff,
      Consumer<String> log) {
    this.outbox = outbox;
    this.sender = sender;
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
    this.log = log;
    this.backoff = minBackoff;
  }

  /** Starts delivering: now, then whenever {@link #nudge} is called or a backoff ends. */
  public void start() {
    nudge();
  }

  /** Asks for a delivery round soon (after a new report was queued). */
  public void nudge() {
    if (!thread.isShutdown()) {
      thread.execute(this::round);
    }
  }

  /** Reports acknowledged so far. */
  public long delivered() {
    return delivered.get();
  }

  /** Failed attempts so far. */
  public long failures() {
    return failures.get();
  }

  private void round() {
    try {
      for (String id : outbox.pending()) {
        int status = sender.send(outbox.read(id));
        if (status == 409) {
          log.accept("usage report " + id + " conflicts with another; moved to rejected/");
          outbox.reject(id);
        } else {
          outbox.remove(id);
          delivered.incrementAndGet();
        }
      }
      backoff = minBackoff;
    } catch (IOException | RuntimeException e) {
      failures.incrementAndGet();
      log.accept("usage delivery failed, retrying in " + backoff + ": " + e.getMessage());
      if (!thread.isShutdown()) {
        thread.schedule(this::round, backoff.toMillis(), TimeUnit.MILLISECONDS);
      }
      Duration doubled = backoff.multipliedBy(2);
      backoff = doubled.compareTo(maxBackoff) > 0 ? maxBackoff : doubled;
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
