package io.tensafe.db;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.flywaydb.core.Flyway;

/**
 * A schema of a test's own, named {@code prefix} and a random suffix, migrated to the current
 * version on the test database ({@code tensafe.test.db.*} system properties), and dropped with
 * everything in it by {@link #drop}.
 */
record MigratedSchema(String name) {
  static MigratedSchema create(String prefix) {
    MigratedSchema schema =
        new MigratedSchema(prefix + "_" + UUID.randomUUID().toString().replace("-", ""));
    Flyway.configure()
        .dataSource(
            System.getProperty("tensafe.test.db.url"),
            System.getProperty("tensafe.test.db.user"),
            System.getProperty("tensafe.test.db.password"))
        .schemas(schema.name())
        .createSchemas(true)
        .locations("classpath:db/migration")
        .load()
        .migrate();
    return schema;
  }

  /** A new connection whose search path is this schema; the caller closes it. */
  Connection connect() throws SQLException {
    Connection c =
        DriverManager.getConnection(
            System.getProperty("tensafe.test.db.url"),
            System.getProperty("tensafe.test.db.user"),
            System.getProperty("tensafe.test.db.password"));
    try (Statement s = c.createStatement()) {
      s.execute("SET search_path TO " + name);
    }
    return c;
  }

  void drop() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }
  }
}
