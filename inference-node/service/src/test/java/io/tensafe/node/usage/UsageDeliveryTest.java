package io.tensafe.node.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsageDeliveryTest {
  @TempDir Path dir;

  private static void await(java.util.function.BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertTrue(done.getAsBoolean());
  }

  @Test
  void anUnreachableMarketplace_isRetriedWithBackoff_untilItAcknowledges() throws Exception {
    UsageOutbox outbox = new UsageOutbox(dir);
    String a = UUID.randomUUID().toString();
    String b = UUID.randomUUID().toString();
    outbox.put(a, "{\"a\":1}".getBytes(StandardCharsets.UTF_8));
    outbox.put(b, "{\"b\":2}".getBytes(StandardCharsets.UTF_8));
    AtomicInteger attempts = new AtomicInteger();
    List<String> logs = new CopyOnWriteArrayList<>();
    try (UsageDelivery d =
        new UsageDelivery(
            outbox,
            bytes -> {
              if (attempts.incrementAndGet() <= 3) {
                throw new IOException("connection refused");
              }
              return new UsageDelivery.Answer(201, "");
            },
            Duration.ofMillis(10),
            Duration.ofMillis(40),
            logs::add)) {
      d.start();
      await(() -> d.delivered() == 2);
      assertEquals(3, d.failures());
    }
    assertEquals(List.of(), outbox.pending());
    assertTrue(logs.getFirst().contains("retrying in PT0.01S"), logs.toString());
    assertTrue(logs.get(2).contains("retrying in PT0.04S"), logs.toString());
  }

  @Test
  void aFailureWithoutAMessage_isLoggedByItsCause_neverAsNull() throws Exception {
    UsageOutbox outbox = new UsageOutbox(dir);
    outbox.put(UUID.randomUUID().toString(), "{}".getBytes(StandardCharsets.UTF_8));
    List<String> logs = new CopyOnWriteArrayList<>();
    AtomicInteger attempts = new AtomicInteger();
    try (UsageDelivery d =
        new UsageDelivery(
            outbox,
            bytes -> {
              if (attempts.incrementAndGet() == 1) {
                // What java.net.http.HttpClient throws for a refused connection: no message.
                java.net.ConnectException refused = new java.net.ConnectException();
                refused.initCause(new java.io.IOException("Connection refused"));
                throw refused;
              }
              return new UsageDelivery.Answer(201, "");
            },
            Duration.ofMillis(10),
            Duration.ofMillis(10),
            logs::add)) {
      d.start();
      await(() -> d.delivered() == 1);
    }
    assertTrue(
        logs.getFirst().endsWith(": ConnectException (Connection refused)"), logs.toString());
    assertTrue(logs.stream().noneMatch(l -> l.endsWith("null")), logs.toString());
  }

  @Test
  void aConflictingReport_isSetAsideNotRetried() throws Exception {
    UsageOutbox outbox = new UsageOutbox(dir);
    String id = UUID.randomUUID().toString();
    outbox.put(id, "{}".getBytes(StandardCharsets.UTF_8));
    try (UsageDelivery d =
        new UsageDelivery(
            outbox,
            bytes -> new UsageDelivery.Answer(409, "{}"),
            Duration.ofMillis(10),
            Duration.ofMillis(10),
            s -> {})) {
      d.start();
      await(() -> Files.exists(dir.resolve("rejected").resolve(id + ".json")));
    }
    assertEquals(List.of(), outbox.pending());
  }

  @Test
  void aReportRefusedWith400_isSetAsideWithItsReason_andTheNextIsStillDelivered() throws Exception {
    UsageOutbox outbox = new UsageOutbox(dir);
    String refused = UUID.randomUUID().toString();
    String good = UUID.randomUUID().toString();
    outbox.put(refused, "{\"bad\":1}".getBytes(StandardCharsets.UTF_8));
    Thread.sleep(20); // oldest first: the refused report is sent first
    outbox.put(good, "{\"good\":2}".getBytes(StandardCharsets.UTF_8));
    List<String> sent = new CopyOnWriteArrayList<>();
    try (UsageDelivery d =
        new UsageDelivery(
            outbox,
            bytes -> {
              String body = new String(bytes, StandardCharsets.UTF_8);
              sent.add(body);
              return body.contains("bad")
                  ? new UsageDelivery.Answer(400, "{\"detail\":\"completionTokens too large\"}")
                  : new UsageDelivery.Answer(201, "");
            },
            Duration.ofMillis(10),
            Duration.ofMillis(10),
            s -> {})) {
      d.start();
      await(() -> d.delivered() == 1);
      assertEquals(1, d.rejected());
      assertEquals(0, d.failures());
    }
    assertEquals(List.of(), outbox.pending());
    assertEquals(List.of("{\"bad\":1}", "{\"good\":2}"), sent);
    assertTrue(
        Files.readString(dir.resolve("rejected").resolve(refused + ".reason.txt"))
            .contains("400 {\"detail\":\"completionTokens too large\"}"));
  }

  @Test
  void aServerError_isRetried_notSetAside() throws Exception {
    UsageOutbox outbox = new UsageOutbox(dir);
    String id = UUID.randomUUID().toString();
    outbox.put(id, "{}".getBytes(StandardCharsets.UTF_8));
    AtomicInteger attempts = new AtomicInteger();
    try (UsageDelivery d =
        new UsageDelivery(
            outbox,
            bytes -> new UsageDelivery.Answer(attempts.incrementAndGet() <= 2 ? 503 : 201, "busy"),
            Duration.ofMillis(10),
            Duration.ofMillis(10),
            s -> {})) {
      d.start();
      await(() -> d.delivered() == 1);
      assertEquals(2, d.failures());
      assertEquals(0, d.rejected());
    }
    assertTrue(Files.notExists(dir.resolve("rejected")));
  }

  @Test
  void outbox_refusesASecondReportForOneRequest_andIgnoresTornWrites() throws Exception {
    UsageOutbox outbox = new UsageOutbox(dir);
    String id = UUID.randomUUID().toString();
    outbox.put(id, "{}".getBytes(StandardCharsets.UTF_8));
    assertThrows(IOException.class, () -> outbox.put(id, "{}".getBytes(StandardCharsets.UTF_8)));
    Files.writeString(dir.resolve("." + UUID.randomUUID() + ".tmp"), "{\"torn");
    UsageOutbox reopened = new UsageOutbox(dir);
    assertEquals(List.of(id), reopened.pending());
    try (var files = Files.list(dir)) {
      assertEquals(1, files.count(), "the torn temporary file is removed");
    }
    assertThrows(IllegalArgumentException.class, () -> outbox.put("../escape", new byte[0]));
  }
}
