package io.tensafe.marketplace.health;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;

/**
 * Refuses to start the {@code production} profile ({@code QUARKUS_PROFILE=production}) with the
 * demo's secrets: the database password and the web pages' client secret must be set, and must not
 * be the values the demo falls back to. In that profile nodes must also register {@code https}
 * endpoints, so that dispatch tokens never travel in the clear ({@link #requiresTls}). The demo
 * ({@code ./tensafe up}) and the tests run the default profiles, where the fallbacks stand.
 */
@ApplicationScoped
public class ProductionGuard {
  /** The demo's database password, refused in production. */
  public static final String DEMO_DB_PASSWORD = "tensafe";

  /** The demo's web-pages client secret, refused in production. */
  public static final String DEMO_WEB_SECRET = "tensafe-web-ui-dev-secret";

  @Inject ProductionConfig config;

  void check(@Observes StartupEvent start) {
    if (!config.production()) {
      return;
    }
    List<String> problems = problems(config.dbPassword().orElse(""), config.webSecret().orElse(""));
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          "the production profile refuses to start: " + String.join("; ", problems));
    }
  }

  /** Whether node endpoints must be {@code https} (the production profile). */
  public boolean requiresTls() {
    return config.production();
  }

  /** What is wrong with these secrets for production; empty when nothing is. */
  public static List<String> problems(String dbPassword, String webSecret) {
    List<String> problems = new ArrayList<>();
    if (dbPassword == null || dbPassword.isBlank() || dbPassword.equals(DEMO_DB_PASSWORD)) {
      problems.add("TENSAFE_DB_PASSWORD is unset or the demo's password");
    }
    if (webSecret == null || webSecret.isBlank() || webSecret.equals(DEMO_WEB_SECRET)) {
      problems.add("TENSAFE_WEB_UI_CLIENT_SECRET is unset or the demo's secret");
    } else if (webSecret.length() < 32) {
      problems.add("TENSAFE_WEB_UI_CLIENT_SECRET is shorter than 32 characters");
    }
    return problems;
  }
}
