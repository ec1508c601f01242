package io.tensafe.node.usage;

import io.tensafe.node.health.Causes;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Delivers the outbox's reports to the marketplace, oldest first, on one background thread. A
 * report is removed only after the marketplace acknowledged it (200/201). A report the marketplace
 * refused for good ({@link #isPermanentRefusal}: 400, 403, 404, 409, 410, 413, 415, 422) moves to
 * {@code rejected/} with the marketplace's reason beside it, and the reports after it keep flowing:
 * one bad report never blocks the outbox. A transient failure (unreachable, 401 after a token
 * refresh, 408, 429, 5xx) leaves the report queued and ends the round; the next round starts after
 * a backoff that doubles from {@code minBackoff} up to {@code maxBackoff}. Since the marketplace
 * records a request id once, a report sent again after a crash between its recording and our
 * removal is acknowledged without being counted twice.
 */
public final class UsageDelivery implements AutoCloseable {
  /** Sends one report; answers the marketplace's answer, or throws if it could not be sent. */
  @FunctionalInterface
  public interface Sender {
    Answer send(byte[] report) throws IOException;
  }

  /**
   * The marketplace's answer to one report.
   *
   * @param status the HTTP status code
   * @param detail the answer's body (a problem+json document when refused), kept as the reason of a
   *     refused report; may be empty
   */
  public record Answer(int status, String detail) {
    public Answer {
      detail = detail == null ? "" : detail;
    }

    /** The answer carried by an HTTP response. */
    public static Answer of(java.net.http.HttpResponse<String> response) {
      return new Answer(response.statusCode(), response.body());
    }
  }

  /** Whether {@code status} refuses a report for good: sending the same bytes again cannot help. */
  public static boolean isPermanentRefusal(int status) {
    return switch (status) {
      case 400, 403, 404, 409, 410, 413, 415, 422 -> true;
      default -> false;
    };
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
  private final AtomicLong rejected = new AtomicLong();
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

  /** Reports refused for good and moved aside so far. */
  public long rejected() {
    return rejected.get();
  }

  /** Failed attempts so far. */
  public long failures() {
    return failures.get();
  }

  private void round() {
    try {
      for (String id : outbox.pending()) {
        Answer answer = sender.send(outbox.read(id));
        if (answer.status() == 200 || answer.status() == 201) {
          outbox.remove(id);
          delivered.incrementAndGet();
        } else if (isPermanentRefusal(answer.status())) {
          log.accept(
              "usage report "
                  + id
                  + " refused with "
                  + answer.status()
                  + "; moved to rejected/: "
                  + answer.detail());
          outbox.reject(id, answer.status() + " " + answer.detail());
          rejected.incrementAndGet();
        } else {
          throw new IOException(
              "usage report " + id + " answered " + answer.status() + ": " + answer.detail());
        }
      }
      backoff = minBackoff;
    } catch (IOException | RuntimeException e) {
      failures.incrementAndGet();
      log.accept("usage delivery failed, retrying in " + backoff + ": " + Causes.describe(e));
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
