package io.tensafe.marketplace.openai;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import io.tensafe.marketplace.tokens.PromptTokenizer;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The admission is one database call (issue 34, ADR 0026): once this replica has verified the key
 * and read the catalogue, nothing is read before {@code admit}, which checks both again; what it
 * refuses it refuses as the separate calls did, and a refusal undoes all but the key's spent rate.
 * Round trips are counted from the PostgreSQL driver's own protocol log (one {@code Sync} per round
 * trip) on the thread that served the request.
 */
@QuarkusTest
@QuarkusTestResource(OidcWiremockTestResource.class)
class AdmissionInOneCallTest {
  @Inject EntityManager em;

  @Test
  void aRequestWithARememberedKeyAndCatalogue_isAdmittedInOneRoundTrip_withNoTransaction()
      throws Exception {
    GatewayFixture f = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      f.registerNode(
          "node-" + f.suffix(), node.url(), List.of(f.adapterId()), 4, node.dispatchToken);
      f.chat("hello").then().statusCode(200); // the key and the catalogue are now in memory
      List<String> trips;
      List<String> beforeAdmission;
      try (DriverLog log = new DriverLog()) {
        f.chat("hello again").then().statusCode(200);
        trips = log.admissionThread();
        beforeAdmission = log.beforeAdmission();
      }
      // Nor did any other thread read the key, its limits or the catalogue for it.
      for (String m : beforeAdmission) {
        for (String read : List.of("api_key", "adapter_version", "key_request", "rate_bucket")) {
          assertTrue(!m.contains(read), "read before the admission: " + m);
        }
      }
      List<String> roundTrips = roundTrips(trips);
      assertTrue(roundTrips.size() >= 2, "round trips: " + roundTrips);
      assertTrue(
          roundTrips.get(0).contains("admit("),
          "the request's first round trip is the admission's call: " + roundTrips);
      // The call commits on its own (ADR 0042): no BEGIN before it, no COMMIT after it, and none
      // on the rest of the request's path on this thread (its relayed count and end are single
      // autocommit statements too).
      for (String trip : roundTrips) {
        assertFalse(
            trip.contains("query=\"BEGIN\"") || trip.contains("query=\"COMMIT\""),
            "a transaction on the request's path: " + trip);
      }
    }
  }

  @Test
  void aKeyRevokedAfterItWasRemembered_isRefused401AtTheAdmission_withNothingTaken()
      throws Exception {
    GatewayFixture f = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      f.registerNode(
          "node-" + f.suffix(), node.url(), List.of(f.adapterId()), 4, node.dispatchToken);
      f.chat("hello").then().statusCode(200);
      // Revoked behind the gateway's back: only the admission's call can see it.
      sql("UPDATE api_key SET revoked_at = now() WHERE prefix = '" + prefix(f) + "'");
      int before = node.requests.size();
      f.chat("hello")
          .then()
          .statusCode(401)
          .contentType("application/problem+json")
          .header("WWW-Authenticate", "Bearer");
      assertEquals(before, node.requests.size(), "no node may see the request");
      assertEquals(
          1L,
          count(
              "SELECT count(*) FROM gateway_request r JOIN api_key k"
                  + " ON k.id = r.api_key_id WHERE k.prefix = '"
                  + prefix(f)
                  + "'"));
      assertEquals(
          0L,
          count(
              "SELECT count(*) FROM limit_lease l JOIN api_key k ON k.id = l.subject"
                  + " WHERE k.prefix = '"
                  + prefix(f)
                  + "'"));
    }
  }

  @Test
  void aRevokedRememberedKeysMalformedRequest_isAnswered401_not400() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      f.registerNode(
          "node-" + f.suffix(), node.url(), List.of(f.adapterId()), 4, node.dispatchToken);
      f.chat("hello").then().statusCode(200);
      sql("UPDATE api_key SET revoked_at = now() WHERE prefix = '" + prefix(f) + "'");
      given()
          .header("Authorization", "Bearer " + f.apiKey())
          .contentType("application/json")
          .body("{\"model\":\"" + f.adapterId() + "\",\"messages\":\"not a list\"}")
          .post("/v1/chat/completions")
          .then()
          .statusCode(401)
          .contentType("application/problem+json");
      given()
          .header("Authorization", "Bearer " + f.apiKey())
          .contentType("application/json")
          .body(
              "{\"model\":\"no-such-adapter\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")
          .post("/v1/chat/completions")
          .then()
          .statusCode(401);
    }
  }

  @Test
  void anAdapterSuspendedAfterTheCatalogueWasRead_isNotServed_andServedAgainOnceRestored()
      throws Exception {
    GatewayFixture f = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      f.registerNode(
          "node-" + f.suffix(), node.url(), List.of(f.adapterId()), 4, node.dispatchToken);
      f.chat("hello").then().statusCode(200);
      int before = node.requests.size();
      sql("UPDATE adapter SET suspended_at = now() WHERE adapter_ref = '" + f.adapterId() + "'");
      f.chat("hello").then().statusCode(404).body("detail", containsString(f.adapterId()));
      assertEquals(before, node.requests.size(), "no node may see the request");
      sql("UPDATE adapter SET suspended_at = NULL WHERE adapter_ref = '" + f.adapterId() + "'");
      f.chat("hello").then().statusCode(200);
    }
  }

  @Test
  void aBudgetRefusal_keepsTheKeysSpentRate_andUndoesItsSlotsRecordAndEvent() throws Exception {
    // Noise multiplier 1.1 at ε 10, δ 1e-5 allows no release a period: every request is refused.
    GatewayFixture tight = GatewayFixture.create("1.1");
    try (FakeNode node = new FakeNode()) {
      tight.registerNode("node-" + tight.suffix(), node.url(), List.of(), 4, node.dispatchToken);
      tight.chat("hi").then().statusCode(422);
      String key = "(SELECT id FROM api_key WHERE prefix = '" + prefix(tight) + "')";
      assertEquals(
          1L,
          count("SELECT count(*) FROM rate_bucket WHERE key_id = " + key),
          "the refused request spent one of the key's rate");
      assertEquals(0L, count("SELECT count(*) FROM limit_lease WHERE subject = " + key));
      assertEquals(0L, count("SELECT count(*) FROM gateway_request WHERE api_key_id = " + key));
      assertEquals(
          0L,
          count(
              "SELECT count(*) FROM limit_lease l JOIN node n ON n.id = l.subject"
                  + " WHERE n.name = 'node-"
                  + tight.suffix()
                  + "'"));
      assertTrue(node.requests.isEmpty(), "nothing may be generated");
    }
  }

  @Test
  void aKeyWhoseSlotsAreAllHeldElsewhere_costsNoTokenizingWithinItsRetryAfter() throws Exception {
    GatewayFixture f = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      f.registerNode(
          "node-" + f.suffix(), node.url(), List.of(f.adapterId()), 4, node.dispatchToken);
      f.chat("hello").then().statusCode(200);
      String key = "(SELECT id FROM api_key WHERE prefix = '" + prefix(f) + "')";
      // Every slot of the key held by another replica.
      sql(
          "INSERT INTO limit_lease (id, kind, subject, holder, expires_at)"
              + " SELECT gen_random_uuid(), 'key', "
              + key
              + ", gen_random_uuid(),"
              + " now() + interval '1 hour' FROM generate_series(1, 200)");
      CountingTokenizer counting = new CountingTokenizer();
      QuarkusMock.installMockForType(counting, PromptTokenizer.class);
      try {
        f.chat("the database says the key is full")
            .then()
            .statusCode(429)
            .header("Retry-After", "1");
        int counted = counting.counted.get();
        for (int i = 0; i < 5; i++) {
          f.chat("a prompt nobody needs to count").then().statusCode(429);
        }
        assertEquals(counted, counting.counted.get(), "tokenized while known to be full");
      } finally {
        sql("DELETE FROM limit_lease WHERE subject = " + key);
      }
    }
  }

  @Test
  void writesToTheCatalogue_refuseNoOtherAdaptersRequests_andNoOpWritesMoveNothing()
      throws Exception {
    GatewayFixture victim = GatewayFixture.create();
    GatewayFixture other = GatewayFixture.create();
    try (FakeNode node = new FakeNode()) {
      victim.registerNode(
          "node-" + victim.suffix(),
          node.url(),
          List.of(victim.adapterId()),
          8,
          node.dispatchToken);
      victim.chat("hello").then().statusCode(200);
      long before = revision();
      sql("UPDATE creator SET suspended_at = suspended_at WHERE false");
      sql("UPDATE adapter SET suspended_at = NULL WHERE adapter_ref = '" + other.adapterId() + "'");
      assertEquals(before, revision(), "writes that changed nothing moved the revision");
      // Another creator changes its own adapter as fast as it can.
      AtomicBoolean stop = new AtomicBoolean();
      Thread writer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      sql(
                          "UPDATE adapter SET suspended_at = CASE WHEN suspended_at IS NULL"
                              + " THEN now() END WHERE adapter_ref = '"
                              + other.adapterId()
                              + "'");
                    }
                  });
      List<Integer> statuses = new ArrayList<>();
      try {
        for (int i = 0; i < 8; i++) {
          statuses.add(victim.chat("hello " + i).statusCode());
        }
      } finally {
        stop.set(true);
        writer.join();
      }
      assertEquals(List.of(200, 200, 200, 200, 200, 200, 200, 200), statuses);
      assertTrue(revision() > before + 8, "the other adapter's changes moved the revision");
    }
  }

  /** Counts the prompts the gateway tokenizes. */
  static final class CountingTokenizer extends PromptTokenizer {
    final AtomicInteger counted = new AtomicInteger();

    @Override
    public int count(String text) {
      counted.incrementAndGet();
      return super.count(text);
    }
  }

  private long revision() {
    return count("SELECT revision FROM catalogue_revision");
  }

  private static String prefix(GatewayFixture f) {
    return f.apiKey().substring(0, 16);
  }

  private void sql(String statement) {
    QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery(statement).executeUpdate());
  }

  private long count(String query) {
    return QuarkusTransaction.requiringNew()
        .call(() -> ((Number) em.createNativeQuery(query).getSingleResult()).longValue());
  }

  /** The driver's messages grouped by round trip: each ends with a {@code Sync}. */
  private static List<String> roundTrips(List<String> messages) {
    List<String> trips = new ArrayList<>();
    StringBuilder trip = new StringBuilder();
    for (String m : messages) {
      trip.append(m).append('\n');
      if (m.contains("FE=> Sync")) {
        trips.add(trip.toString());
        trip.setLength(0);
      }
    }
    return trips;
  }

  /**
   * The driver's protocol messages while open, by thread; {@link #admissionThread} those of the
   * thread that sent the admission's call.
   */
  private static final class DriverLog extends Handler implements AutoCloseable {
    private final Logger logger = Logger.getLogger("org.postgresql.core.v3.QueryExecutorImpl");
    private final Level level = logger.getLevel();
    private final List<LogRecord> records = new ArrayList<>();

    DriverLog() {
      logger.setLevel(Level.FINEST);
      logger.addHandler(this);
    }

    List<String> admissionThread() {
      List<LogRecord> seen;
      synchronized (records) {
        seen = List.copyOf(records);
      }
      long thread =
          seen.stream()
              .filter(r -> text(r).contains("admit("))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no admission in " + seen.size() + " records"))
              .getLongThreadID();
      return seen.stream().filter(r -> r.getLongThreadID() == thread).map(DriverLog::text).toList();
    }

    /** Every thread's messages before the admission's call. */
    List<String> beforeAdmission() {
      List<String> all;
      synchronized (records) {
        all = records.stream().map(DriverLog::text).toList();
      }
      List<String> before = new ArrayList<>();
      for (String m : all) {
        if (m.contains("admit(")) {
          break;
        }
        before.add(m);
      }
      return before;
    }

    private static String text(LogRecord r) {
      Object[] parameters = r.getParameters();
      String message = String.valueOf(r.getMessage());
      return parameters == null ? message : java.text.MessageFormat.format(message, parameters);
    }

    @Override
    public void publish(LogRecord r) {
      synchronized (records) {
        records.add(r);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      logger.removeHandler(this);
      logger.setLevel(level);
    }
  }
}
