package io.tensafe.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The DP budget's one rule for closing a reservation ({@code R__budget_rules.sql}): {@code
 * reservation_share} against exact decimal arithmetic computed here (ρ · releases / reserved,
 * rounded up at 24 places, at most ρ), and {@code close_reservation}'s settle, bound, lowered bound
 * and refund on a real budget row.
 */
class BudgetRulesTest {
  private static MigratedSchema schema;

  private static Connection connect() throws SQLException {
    return schema.connect();
  }

  /** This schema is the test's own: its budgets need no organisation or adapter rows. */
  @BeforeAll
  static void budgetsStandAlone() throws SQLException {
    schema = MigratedSchema.create("budget_rules_test");
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(
          "ALTER TABLE dp_budget DROP CONSTRAINT IF EXISTS dp_budget_client_organisation_id_fkey,"
              + " DROP CONSTRAINT IF EXISTS dp_budget_adapter_id_fkey");
    }
  }

  @AfterAll
  static void dropSchema() throws SQLException {
    schema.drop();
  }

  private static BigDecimal exactShare(BigDecimal rho, long releases, long reserved) {
    return rho.multiply(BigDecimal.valueOf(releases))
        .divide(BigDecimal.valueOf(reserved), 24, RoundingMode.CEILING)
        .min(rho);
  }

  @Test
  void reservationShare_isTheExactCeilingAt24Places_andNeverMoreThanTheReservation()
      throws SQLException {
    SplittableRandom random = new SplittableRandom(2026);
    List<BigDecimal> rhos = new ArrayList<>();
    List<Long> releases = new ArrayList<>();
    List<Long> reserved = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      long r = random.nextLong(1, i % 2 == 0 ? 1_000 : 1_000_000_000L);
      rhos.add(
          BigDecimal.valueOf(random.nextLong(0, Long.MAX_VALUE), 24)
              .multiply(BigDecimal.valueOf(random.nextInt(1, 1_000_000))));
      reserved.add(r);
      releases.add(random.nextLong(0, r + 1));
    }
    rhos.set(0, new BigDecimal("0.000000000000000000000001"));
    releases.set(0, 1L);
    reserved.set(0, 3L);
    try (Connection c = connect();
        PreparedStatement q =
            c.prepareStatement(
                "SELECT reservation_share(r, t, n) FROM unnest(?::numeric[], ?::bigint[],"
                    + " ?::bigint[]) WITH ORDINALITY AS x(r, t, n, i) ORDER BY i")) {
      q.setArray(1, c.createArrayOf("numeric", rhos.toArray()));
      q.setArray(2, c.createArrayOf("bigint", releases.toArray()));
      q.setArray(3, c.createArrayOf("bigint", reserved.toArray()));
      try (ResultSet rows = q.executeQuery()) {
        for (int i = 0; i < rhos.size(); i++) {
          rows.next();
          BigDecimal want = exactShare(rhos.get(i), releases.get(i), reserved.get(i));
          assertEquals(0, want.compareTo(rows.getBigDecimal(1)), "case " + i + ": " + want);
        }
      }
    }
  }

  /** A budget of ρ 1 holding a reservation of 10 releases costing ρ 0.4, for {@code request}. */
  private static UUID reserve(Connection c, String request) throws SQLException {
    UUID budget = UUID.randomUUID();
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO dp_budget (id, client_organisation_id, adapter_id, period_start,"
                + " period_end, rho_limit, rho_spent, delta)"
                + " VALUES (?, ?, ?, now(), now() + interval '1 day', 1, 0.4, 0.00001)")) {
      s.setObject(1, budget);
      s.setObject(2, UUID.randomUUID());
      s.setObject(3, UUID.randomUUID());
      s.executeUpdate();
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO dp_budget_event (budget_id, request_id, kind, releases, rho)"
                + " VALUES (?, ?, 'reserve', 10, 0.4)")) {
      s.setObject(1, budget);
      s.setString(2, request);
      s.executeUpdate();
    }
    return budget;
  }

  /** close_reservation's status, reserved releases and ρ spent after it. */
  private static List<Object> close(
      Connection c, String request, String kind, long releases, boolean reported)
      throws SQLException {
    try (PreparedStatement q = c.prepareStatement("SELECT * FROM close_reservation(?, ?, ?, ?)")) {
      q.setString(1, request);
      q.setString(2, kind);
      q.setLong(3, releases);
      q.setBoolean(4, reported);
      try (ResultSet r = q.executeQuery()) {
        r.next();
        BigDecimal spent = r.getBigDecimal(3);
        return java.util.Arrays.asList(
            r.getString(1),
            r.getObject(2),
            spent == null ? null : spent.stripTrailingZeros().toPlainString());
      }
    }
  }

  @Test
  void closeReservation_settlesBoundsLowersAndRefundsOnce() throws SQLException {
    try (Connection c = connect()) {
      String id = "settle-" + UUID.randomUUID();
      reserve(c, id);
      // 4 of 10 releases: ρ 0.16 spent, 0.24 back.
      assertEquals(List.of("settled", 10L, "0.16"), close(c, id, "settle", 4, true));
      assertEquals(java.util.Arrays.asList("closed", null, null), close(c, id, "settle", 1, true));

      String bound = "bound-" + UUID.randomUUID();
      reserve(c, bound);
      // A bound of 7 (ρ 0.28), lowered once by a report of 2 (ρ 0.08), never raised.
      assertEquals(List.of("settled", 10L, "0.28"), close(c, bound, "bound", 7, false));
      assertEquals(List.of("lowered", 10L, "0.08"), close(c, bound, "settle", 2, true));
      assertEquals(
          java.util.Arrays.asList("closed", null, null), close(c, bound, "settle", 1, true));

      String raise = "raise-" + UUID.randomUUID();
      reserve(c, raise);
      close(c, raise, "bound", 3, false);
      // A report of more than the bound keeps the bound.
      assertEquals(List.of("lowered", 10L, "0.12"), close(c, raise, "settle", 9, true));

      String refund = "refund-" + UUID.randomUUID();
      reserve(c, refund);
      assertEquals(List.of("settled", 10L, "0"), close(c, refund, "refund", 0, false));
      assertEquals(
          java.util.Arrays.asList("closed", null, null), close(c, refund, "refund", 0, false));
    }
  }

  @Test
  void closeReservation_refusesAnUnreportedCountOutsideTheReservation() throws SQLException {
    try (Connection c = connect()) {
      String id = "range-" + UUID.randomUUID();
      reserve(c, id);
      SQLException e = assertThrows(SQLException.class, () -> close(c, id, "settle", 11, false));
      assertEquals("22023", e.getSQLState());
      // A reported count above the reservation keeps all of it spent.
      assertEquals(List.of("settled", 10L, "0.4"), close(c, id, "settle", 11, true));
    }
  }

  @Test
  void closeReservation_clampsABoundAboveTheReservation_andLowersItLater() throws SQLException {
    try (Connection c = connect()) {
      // A lost request of max_tokens below the node's run-ahead: its bound (prompt + relayed +
      // run-ahead) exceeds the reservation. It closes at the whole reservation, never refused
      // (a refusal would leave the request unended and its reservation open at every sweep).
      String id = "over-" + UUID.randomUUID();
      reserve(c, id);
      assertEquals(List.of("settled", 10L, "0.4"), close(c, id, "bound", 79, false));
      assertEquals(List.of("lowered", 10L, "0.12"), close(c, id, "settle", 3, true));
    }
  }

  @Test
  void closeReservation_refusesANullCount_insteadOfRefundingTheReservation() throws SQLException {
    try (Connection c = connect()) {
      String id = "null-" + UUID.randomUUID();
      reserve(c, id);
      for (String kind : List.of("settle", "bound")) {
        try (PreparedStatement q =
            c.prepareStatement("SELECT * FROM close_reservation(?, ?, NULL, false)")) {
          q.setString(1, id);
          q.setString(2, kind);
          SQLException e = assertThrows(SQLException.class, q::executeQuery);
          assertEquals("22023", e.getSQLState());
        }
      }
      assertEquals(List.of("settled", 10L, "0.16"), close(c, id, "settle", 4, false));
    }
  }
}
