package io.tensafe.marketplace.health;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.util.Optional;

/**
 * What {@link ProductionGuard} reads: whether the {@code production} profile is on, and the two
 * secrets Quarkus itself reads that it must not start with the demo's values of. Rooted at no
 * prefix because it names settings of both {@code tensafe.*} and {@code quarkus.*}; each is read
 * here under the name Quarkus and application.properties give it. Empty values count as unset.
 */
@ConfigMapping(prefix = "")
public interface ProductionConfig {
  /** The production profile's flag ({@code %production.tensafe.production=true}). */
  @WithName("tensafe.production")
  @WithDefault("false")
  boolean production();

  /** The database password ({@code TENSAFE_DB_PASSWORD}). */
  @WithName("quarkus.datasource.password")
  Optional<String> dbPassword();

  /** The web pages' OIDC client secret ({@code TENSAFE_WEB_UI_CLIENT_SECRET}). */
  @WithName("quarkus.oidc.web.credentials.secret")
  Optional<String> webSecret();
}
