package io.tensafe.node.usage;

import io.tensafe.node.marketplace.MarketplaceClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The node's side of a crash drill, run in its own JVM by {@link UsageOutboxCrashTest}: queues one
 * report as a finished generation does, says so on stdout, then delivers it to the given
 * marketplace, which never answers, so the process is killed before any acknowledgement.
 */
public final class OutboxCrashDrill {
  private OutboxCrashDrill() {}

  public static void main(String[] args) throws Exception {
    UsageOutbox outbox = new UsageOutbox(Path.of(args[0]));
    outbox.put(args[2], args[3].getBytes(StandardCharsets.UTF_8));
    System.out.println("queued");
    System.out.flush();
    MarketplaceClient client =
        new MarketplaceClient(HttpClient.newHttpClient(), URI.create(args[1]), () -> "t");
    new UsageDelivery(
            outbox,
            report -> UsageDelivery.Answer.of(client.postUsage(report)),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            s -> {})
        .start();
    Thread.sleep(Long.MAX_VALUE);
  }
}
