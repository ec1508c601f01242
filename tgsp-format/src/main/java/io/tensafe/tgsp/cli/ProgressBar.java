package io.tensafe.tgsp.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongConsumer;

/**
 * A progress bar on stderr for long operations: redrawn in place at most ten times a second when
 * stderr is a terminal; otherwise one line when done, so logs stay readable.
 */
final class ProgressBar implements LongConsumer {
  private final String label;
  private long total;
  private final PrintStream out;
  private final boolean interactive;
  private final long startNanos = System.nanoTime();
  private long lastDrawNanos;

  ProgressBar(String label, long total) {
    this.label = label;
    this.total = Math.max(1, total);
    this.out = System.err;
    this.interactive = System.console() != null;
  }

  @Override
  public void accept(long done) {
    long now = System.nanoTime();
    if (interactive && (now - lastDrawNanos > 100_000_000L || done >= total)) {
      lastDrawNanos = now;
      out.print("\r" + line(done, now));
      out.flush();
    }
  }

  /** Ends the bar with a summary line: {@code done} bytes, i.e. 100%. */
  void finish(long done) {
    total = Math.max(1, done);
    String line = line(done, System.nanoTime());
    out.println(interactive ? "\r" + line : line);
  }

  private String line(long done, long now) {
    int width = 30;
    int filled = (int) Math.min(width, done * width / total);
    double seconds = Math.max(1e-9, (now - startNanos) / 1e9);
    return String.format(
        Locale.ROOT,
        "%-8s [%s%s] %3d%%  %.1f/%.1f MB  %.1f MB/s",
        label,
        "#".repeat(filled),
        " ".repeat(width - filled),
        done * 100 / total,
        done / 1e6,
        total / 1e6,
        done / 1e6 / seconds);
  }
}
