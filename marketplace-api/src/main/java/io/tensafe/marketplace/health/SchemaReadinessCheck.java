package io.tensafe.marketplace.health;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only when the database answers and Flyway has applied every migration the db module ships:
 * a marketplace on a half-migrated schema must not take traffic.
 */
@Readiness
@ApplicationScoped
public class SchemaReadinessCheck implements HealthCheck {
  static final String NAME = "Database schema";

  private final AgroalDataSource dataSource;

  SchemaReadinessCheck(AgroalDataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public HealthCheckResponse call() {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SELECT max(version::int) AS version, bool_and(success) AS ok"
                    + " FROM flyway_schema_history WHERE version IS NOT NULL")) {
      rs.next();
      int version = rs.getInt("version");
      boolean ok = rs.getBoolean("ok");
      return HealthCheckResponse.named(NAME)
          .status(ok && version > 0)
          .withData("schemaVersion", version)
          .build();
    } catch (SQLException e) {
      return HealthCheckResponse.named(NAME).down().withData("error", e.getSQLState()).build();
    }
  }
}
