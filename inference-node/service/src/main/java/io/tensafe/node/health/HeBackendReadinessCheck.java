package io.tensafe.node.health;

import io.tensafe.kernels.backend.HeBackend;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Reports which HE backend the node runs (after any fallback) and what the CUDA probe found. */
@Readiness
@ApplicationScoped
public class HeBackendReadinessCheck implements HealthCheck {
  static final String NAME = "HE backend";

  private final HeBackendChoice choice;
  private final HeBackend backend;

  HeBackendReadinessCheck(HeBackendChoice choice, HeBackend backend) {
    this.choice = choice;
    this.backend = backend;
  }

  @Override
  public HealthCheckResponse call() {
    return HealthCheckResponse.named(NAME)
        .up()
        .withData("backend", backend.name())
        .withData("cuda", choice.cuda().describe())
        .build();
  }
}
