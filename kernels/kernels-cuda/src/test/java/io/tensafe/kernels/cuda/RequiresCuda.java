package io.tensafe.kernels.cuda;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables a test class where no GPU is present, with the probe's own reason as the skip message
 * (and the same line on standard error, so a build log shows why the GPU suite did not run).
 */
final class RequiresCuda implements ExecutionCondition {
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    CudaAvailability availability = CudaProbe.result();
    if (availability.available()) {
      return ConditionEvaluationResult.enabled(availability.describe());
    }
    String reason = "skipped, no GPU here: " + availability.describe();
    if (context.getTestMethod().isEmpty()) {
      System.err.println(context.getDisplayName() + " " + reason);
    }
    return ConditionEvaluationResult.disabled(reason);
  }
}
