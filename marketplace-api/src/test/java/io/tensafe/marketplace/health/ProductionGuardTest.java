package io.tensafe.marketplace.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProductionGuardTest {
  @Test
  void theDemoSecretsOrNone_areRefused() {
    assertEquals(
        2,
        ProductionGuard.problems(ProductionGuard.DEMO_DB_PASSWORD, ProductionGuard.DEMO_WEB_SECRET)
            .size());
    assertEquals(2, ProductionGuard.problems("", null).size());
    assertTrue(
        ProductionGuard.problems("s3cret-db", "short").getFirst().contains("shorter than 32"));
  }

  @Test
  void realSecrets_pass() {
    assertEquals(List.of(), ProductionGuard.problems("s3cret-db", "x".repeat(43)));
  }

  @Test
  void theGuardsSettings_areReadUnderTheirOwnNames() {
    ProductionConfig set =
        config(
            Map.of(
                "tensafe.production", "true",
                "quarkus.datasource.password", "s3cret-db",
                "quarkus.oidc.web.credentials.secret", "web"));
    assertTrue(set.production());
    assertEquals(Optional.of("s3cret-db"), set.dbPassword());
    assertEquals(Optional.of("web"), set.webSecret());

    ProductionConfig unset = config(Map.of("quarkus.datasource.password", ""));
    assertFalse(unset.production(), "off unless the production profile sets it");
    assertEquals(Optional.empty(), unset.dbPassword(), "empty counts as unset");
    assertEquals(Optional.empty(), unset.webSecret());
  }

  private static ProductionConfig config(Map<String, String> properties) {
    SmallRyeConfig config =
        new SmallRyeConfigBuilder()
            .withMapping(ProductionConfig.class)
            .withSources(new PropertiesConfigSource(properties, "test", 100))
            .build();
    return config.getConfigMapping(ProductionConfig.class);
  }
}
