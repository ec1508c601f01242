package io.tensafe.marketplace.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
}
