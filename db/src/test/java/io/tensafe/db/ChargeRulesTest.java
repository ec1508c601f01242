package io.tensafe.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The charge ledger's one rule, {@code charge_amounts} ({@code R__charge_rules.sql}), against exact
 * decimal arithmetic computed here: amount = round_half_up(Σ tokens × price / 1000), creator =
 * floor(amount × (10000 − take) / 10000), platform = amount − creator.
 */
class ChargeRulesTest {
  private static MigratedSchema schema;

  private static Connection connect() throws SQLException {
    return schema.connect();
  }

  @BeforeAll
  static void migrate() {
    schema = MigratedSchema.create("charge_rules_test");
  }

  @AfterAll
  static void dropSchema() throws SQLException {
    schema.drop();
  }

  /** One case: tokens, prices in micro-units per 1k tokens, take in basis points. */
  private record Case(
      long prompt, long completion, long promptPrice, long completionPrice, int take) {
    long[] exact() {
      BigDecimal thousandths =
          BigDecimal.valueOf(prompt)
              .multiply(BigDecimal.valueOf(promptPrice))
              .add(BigDecimal.valueOf(completion).multiply(BigDecimal.valueOf(completionPrice)));
      long amount =
          thousandths
              .divide(BigDecimal.valueOf(1000))
              .setScale(0, RoundingMode.HALF_UP)
              .longValueExact();
      long creator =
          BigDecimal.valueOf(amount)
              .multiply(BigDecimal.valueOf(10_000 - take))
              .divide(BigDecimal.valueOf(10_000))
              .setScale(0, RoundingMode.FLOOR)
              .longValueExact();
      return new long[] {amount, creator, amount - creator};
    }
  }

  /** The function's answers for {@code cases}, in one round trip. */
  private static List<long[]> amounts(List<Case> cases) throws SQLException {
    try (Connection c = connect();
        PreparedStatement q =
            c.prepareStatement(
                "SELECT (charge_amounts(p, c, pp, cp, t)).* FROM unnest(?::bigint[], ?::bigint[],"
                    + " ?::bigint[], ?::bigint[], ?::integer[]) WITH ORDINALITY AS x(p, c, pp, cp,"
                    + " t, n) ORDER BY n")) {
      q.setArray(1, longs(c, cases.stream().mapToLong(Case::prompt).toArray()));
      q.setArray(2, longs(c, cases.stream().mapToLong(Case::completion).toArray()));
      q.setArray(3, longs(c, cases.stream().mapToLong(Case::promptPrice).toArray()));
      q.setArray(4, longs(c, cases.stream().mapToLong(Case::completionPrice).toArray()));
      q.setArray(
          5, c.createArrayOf("integer", cases.stream().map(Case::take).toArray(Integer[]::new)));
      List<long[]> out = new ArrayList<>();
      try (ResultSet rows = q.executeQuery()) {
        while (rows.next()) {
          out.add(new long[] {rows.getLong(1), rows.getLong(2), rows.getLong(3)});
        }
      }
      return out;
    }
  }

  private static Array longs(Connection c, long[] values) throws SQLException {
    Long[] boxed = new Long[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return c.createArrayOf("bigint", boxed);
  }

  @Test
  void randomPricesTokensAndTakes_matchExactDecimalArithmetic() throws SQLException {
    SplittableRandom random = new SplittableRandom(2026);
    List<Case> cases = new ArrayList<>();
    for (int i = 0; i < 50_000; i++) {
      cases.add(
          new Case(
              random.nextLong(0, 1_000_000),
              random.nextLong(0, 1_000_000),
              random.nextLong(1, 100_000_000),
              random.nextLong(1, 100_000_000),
              random.nextInt(0, 10_001)));
    }
    List<long[]> got = amounts(cases);
    assertEquals(cases.size(), got.size());
    for (int i = 0; i < cases.size(); i++) {
      long[] want = cases.get(i).exact();
      assertEquals(
          List.of(want[0], want[1], want[2]),
          List.of(got.get(i)[0], got.get(i)[1], got.get(i)[2]),
          "case " + i);
    }
  }

  @Test
  void documentedExamples() throws SQLException {
    // 1,234 prompt tokens at 1.5 units/1k and 567 completion tokens at 2 units/1k:
    // 1851 + 1134 = 2985 micro-units; 25% take leaves the creator floor(2238.75) = 2238.
    // Half a micro-unit rounds up; a whole take leaves the creator nothing.
    List<long[]> got =
        amounts(
            List.of(
                new Case(1234, 567, 1500, 2000, 2500),
                new Case(1, 0, 500, 1, 10_000),
                new Case(1, 0, 499, 1, 0),
                new Case(0, 0, 1, 1, 2500)));
    assertEquals(List.of(2985L, 2238L, 747L), List.of(got.get(0)[0], got.get(0)[1], got.get(0)[2]));
    assertEquals(List.of(1L, 0L, 1L), List.of(got.get(1)[0], got.get(1)[1], got.get(1)[2]));
    assertEquals(List.of(0L, 0L, 0L), List.of(got.get(2)[0], got.get(2)[1], got.get(2)[2]));
    assertEquals(List.of(0L, 0L, 0L), List.of(got.get(3)[0], got.get(3)[1], got.get(3)[2]));
  }

  @Test
  void outOfRangeInputs_areRefusedWithInvalidParameterValue() {
    for (Case bad :
        List.of(
            new Case(-1, 0, 1, 1, 0),
            new Case(0, 0, 0, 1, 0),
            new Case(0, 0, 1, 1, 10_001),
            new Case(Long.MAX_VALUE / 2, 0, 1_000_000, 1, 0))) {
      SQLException e =
          assertThrows(SQLException.class, () -> amounts(List.of(bad)), bad.toString());
      assertEquals("22023", e.getSQLState(), bad.toString());
      assertTrue(
          e.getMessage().contains("must") || e.getMessage().contains("exceeds"), e.getMessage());
    }
  }
}
