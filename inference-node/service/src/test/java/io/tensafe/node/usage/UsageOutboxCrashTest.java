package io.tensafe.node.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 between a report's arrival at the marketplace and its acknowledgement, then a restart:
 * the report is delivered again, byte for byte, so the marketplace (which records a request id
 * once, see the marketplace's NodeUsageTest) ends with exactly one event; nothing is lost.
 */
class UsageOutboxCrashTest {
  @TempDir Path outbox;

  @Test
  void killedBeforeTheAcknowledgement_theRestartedNodeDeliversTheSameReportOnce() throws Exception {
    String id = UUID.randomUUID().toString();
    String report = "{\"requestId\":\"" + id + "\",\"completionTokens\":12}";
    List<String> arrived = new CopyOnWriteArrayList<>();
    CountDownLatch received = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    HttpServer hanging = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hanging.createContext(
        "/api/node/usage",
        x -> {
          arrived.add(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          received.countDown();
          try {
            never.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    hanging.start();
    Process node =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                OutboxCrashDrill.class.getName(),
                outbox.toString(),
                "http://127.0.0.1:" + hanging.getAddress().getPort() + "/",
                id,
                report)
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("queued", out.readLine());
      assertTrue(received.await(60, TimeUnit.SECONDS), "the report reached the marketplace");
      node.destroyForcibly(); // SIGKILL: no shutdown hooks, no acknowledgement
      assertTrue(node.waitFor(30, TimeUnit.SECONDS));
      assertEquals(137, node.exitValue(), "killed by SIGKILL");
    } finally {
      node.destroyForcibly();
      never.countDown();
      hanging.stop(0);
    }
    UsageOutbox restarted = new UsageOutbox(outbox);
    assertEquals(List.of(id), restarted.pending(), "the report survived the kill");

    Set<String> recorded = ConcurrentHashMap.newKeySet();
    List<Integer> answers = new CopyOnWriteArrayList<>();
    try (UsageDelivery delivery =
        new UsageDelivery(
            restarted,
            bytes -> {
              String body = new String(bytes, StandardCharsets.UTF_8);
              arrived.add(body);
              int status = recorded.add(body) ? 201 : 200;
              answers.add(status);
              return new UsageDelivery.Answer(status, "");
            },
            Duration.ofMillis(50),
            Duration.ofMillis(200),
            s -> {})) {
      delivery.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (delivery.delivered() < 1 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertEquals(1, delivery.delivered());
    }
    assertEquals(List.of(), restarted.pending(), "removed once acknowledged");
    assertEquals(List.of(report, report), arrived, "sent again, byte for byte");
    assertEquals(List.of(201), answers);
  }
}
