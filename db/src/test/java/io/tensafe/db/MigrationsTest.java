package io.tensafe.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Applies the migrations to a fresh schema of the real test PostgreSQL. */
class MigrationsTest {
  private static final Pattern FILE_NAME = Pattern.compile("V(\\d+)__[a-z]+(_[a-z0-9]+)+\\.sql");

  /** Repeatable migrations: functions, views and triggers, one current copy each. */
  private static final Pattern REPEATABLE = Pattern.compile("R__[a-z]+(_[a-z0-9]+)+\\.sql");

  private final String schema = "migrations_test_" + UUID.randomUUID().toString().replace("-", "");

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(
        System.getProperty("tensafe.test.db.url"),
        System.getProperty("tensafe.test.db.user"),
        System.getProperty("tensafe.test.db.password"));
  }

  private Flyway flyway() {
    return Flyway.configure()
        .dataSource(
            System.getProperty("tensafe.test.db.url"),
            System.getProperty("tensafe.test.db.user"),
            System.getProperty("tensafe.test.db.password"))
        .schemas(schema)
        .createSchemas(true)
        .locations("classpath:db/migration")
        .load();
  }

  @BeforeEach
  void migrate() {
    flyway().migrate();
  }

  @AfterEach
  void dropSchema() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  void migrate_secondRun_appliesNothing() {
    MigrateResult again = flyway().migrate();
    assertEquals(0, again.migrationsExecuted);
    assertTrue(flyway().validateWithResult().validationSuccessful);
  }

  @Test
  void organisation_validRow_getsIdAndTimestamp() throws SQLException {
    try (Connection c = connect();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO "
                    + schema
                    + ".organisation (slug, display_name) VALUES (?, ?) RETURNING id, created_at")) {
      insert.setString(1, "acme-bank");
      insert.setString(2, "Acme Bank");
      try (ResultSet rs = insert.executeQuery()) {
        assertTrue(rs.next());
        assertTrue(rs.getObject("id") instanceof UUID);
        assertTrue(rs.getTimestamp("created_at") != null);
      }
    }
  }

  @Test
  void organisation_badSlugOrDuplicate_rejectedByConstraint() throws SQLException {
    try (Connection c = connect()) {
      SQLException bad = assertThrows(SQLException.class, () -> insertOrganisation(c, "Bad Slug"));
      assertTrue(bad.getMessage().contains("organisation_slug_format"), bad.getMessage());
      insertOrganisation(c, "dup");
      SQLException duplicate = assertThrows(SQLException.class, () -> insertOrganisation(c, "dup"));
      assertEquals("23505", duplicate.getSQLState(), "unique_violation");
    }
  }

  private void insertOrganisation(Connection c, String slug) throws SQLException {
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO "
                + schema
                + ".organisation (slug, display_name) VALUES (?, 'Test org')")) {
      insert.setString(1, slug);
      insert.executeUpdate();
    }
  }

  @Test
  void migrationFiles_followNamingAndContiguousVersions() throws IOException, URISyntaxException {
    Path folder = Path.of(getClass().getResource("/db/migration").toURI());
    List<String> names;
    try (Stream<Path> files = Files.list(folder)) {
      names = files.map(p -> p.getFileName().toString()).sorted().toList();
    }
    List<Integer> versions =
        names.stream()
            .filter(name -> !REPEATABLE.matcher(name).matches())
            .map(
                name -> {
                  Matcher m = FILE_NAME.matcher(name);
                  assertTrue(
                      m.matches(), name + " does not match V{n}__verb_object.sql or R__object.sql");
                  return Integer.parseInt(m.group(1));
                })
            .sorted()
            .toList();
    for (int i = 0; i < versions.size(); i++) {
      assertEquals(i + 1, versions.get(i), "migration versions must be 1..n without gaps");
    }
  }

  /**
   * One current copy (ADR 0038): since V36, versioned migrations hold schema only; functions, views
   * and triggers are written in the repeatable files, and the ones the gateway calls are there.
   */
  @Test
  void functionsAndViews_liveInTheRepeatables() throws IOException, URISyntaxException {
    Path folder = Path.of(getClass().getResource("/db/migration").toURI());
    Pattern definition =
        Pattern.compile("CREATE\\s+(OR\\s+REPLACE\\s+)?(FUNCTION|VIEW|TRIGGER)\\s+(\\w+)");
    java.util.Set<String> repeatable = new java.util.HashSet<>();
    try (Stream<Path> files = Files.list(folder)) {
      for (Path file : files.toList()) {
        String name = file.getFileName().toString();
        String text = Files.readString(file);
        Matcher m = definition.matcher(text);
        if (REPEATABLE.matcher(name).matches()) {
          while (m.find()) {
            repeatable.add(m.group(3));
          }
        } else {
          Matcher v = FILE_NAME.matcher(name);
          assertTrue(v.matches(), name);
          if (Integer.parseInt(v.group(1)) >= 36) {
            boolean defines = m.find();
            assertTrue(
                !defines, name + " defines " + (defines ? m.group(3) : "") + ": put it in R__");
          }
        }
      }
    }
    for (String living :
        List.of(
            "admit",
            "admit_request",
            "take_key_request",
            "take_limit_lease",
            "version_still_served",
            "newest_version_at",
            "api_key_usable",
            "node_slots",
            "note_node_failure",
            "usable_node",
            "dispatchable_node",
            "reserve_private_tokens")) {
      assertTrue(repeatable.contains(living), living + " is not defined in an R__ file");
    }
  }

  /** The repeatables' views see the columns versioned migrations added to their tables. */
  @Test
  void theDispatchView_seesTheBreakersColumns() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = '"
                    + schema
                    + "' AND table_name = 'dispatchable_node'"
                    + " AND column_name IN ('tripped_until', 'failure_streak', 'slots')")) {
      r.next();
      assertEquals(3, r.getInt(1));
    }
  }
}
