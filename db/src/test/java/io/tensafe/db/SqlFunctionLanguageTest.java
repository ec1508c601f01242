package io.tensafe.db;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rule of ADR 0041: a function the gateway calls per request that reads tables is PL/pgSQL,
 * whose plans PostgreSQL keeps for the session; a {@code LANGUAGE sql} function whose body has a
 * {@code FROM} is parsed and planned again on every execution of the statement that calls it
 * (PostgreSQL 15 inlines only bodies without one, and set-returning ones used in {@code FROM}). The
 * SQL functions left are named here with why each is cheap.
 */
class SqlFunctionLanguageTest {
  private static MigratedSchema schema;

  /** The only {@code LANGUAGE sql} functions allowed, and why each costs no planning per call. */
  private static final Map<String, String> ALLOWED =
      Map.of(
          "charge_row", "set-returning, called in FROM (record_charge): inlined as a subquery",
          "note_node_failure", "called only when a node fails, never on a served request's path");

  @BeforeAll
  static void migrate() {
    schema = MigratedSchema.create("sql_language_test");
  }

  @AfterAll
  static void drop() throws Exception {
    schema.drop();
  }

  @Test
  void everySqlFunctionIsOneOfTheCheapOnes() throws Exception {
    Map<String, String> found = new TreeMap<>();
    try (Connection c = schema.connect();
        Statement s = c.createStatement();
        ResultSet rows =
            s.executeQuery(
                """
                SELECT p.proname FROM pg_proc p
                JOIN pg_namespace n ON n.oid = p.pronamespace
                JOIN pg_language l ON l.oid = p.prolang
                WHERE n.nspname = current_schema() AND l.lanname = 'sql'
                """)) {
      while (rows.next()) {
        String name = rows.getString(1);
        found.put(name, ALLOWED.getOrDefault(name, "not allowed: write it in PL/pgSQL"));
      }
    }
    assertEquals(new TreeMap<>(ALLOWED), found);
  }
}
