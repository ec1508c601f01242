package io.tensafe.node.health;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Reports which HE backend the node runs and what the CUDA probe found. */
@Readiness
@ApplicationScoped
public class HeBackendReadinessCheck implements HealthCheck {
  static final String NAME = "HE backend";

  private final HeBackendChoice choice;

  HeBackendReadinessCheck(HeBackendChoice choice) {
    this.choice = choice;
  }

  @Override
  public HealthCheckResponse call() {
    return HealthCheckResponse.named(NAME)
        .up()
        .withData("backend", choice.backend())
        .withData("cuda", choice.cuda().describe())
        .build();
  }
}
