package io.tensafe.node.runtime;

import io.tensafe.kernels.backend.HeBackend;
import io.tensafe.kernels.helora.BatchedOperator;
import io.tensafe.kernels.helora.HeLoraOperator;
import io.tensafe.kernels.helora.HostedCoefficientOperator;
import io.tensafe.kernels.helora.HostedPhaseTimes;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * The node's hosted HE-LoRA operators: one per ring degree, each with its own session key made when
 * it is first needed, all on the node's {@link HeBackend}, and each behind a {@link
 * BatchedOperator} so that concurrent requests' calls share units of backend work. A site with
 * input width d goes to the smallest 128-bit ring that fits d ({@link
 * HostedCoefficientOperator#parametersFor}). The keys live only in this process. Thread-safe.
 */
public final class HeOperators implements IntFunction<HeLoraOperator> {
  /** Tokens gathered into one unit of backend work at most. */
  static final int MAX_BATCH_TOKENS = 4096;

  private final HeBackend backend;
  private final Map<Integer, BatchedOperator> byLogN = new ConcurrentHashMap<>();

  public HeOperators(HeBackend backend) {
    this.backend = backend;
  }

  /** Where the operators' time went so far, summed over every ring. */
  public HostedPhaseTimes phaseTimes() {
    HostedPhaseTimes total = new HostedPhaseTimes(0, 0, 0);
    for (BatchedOperator op : byLogN.values()) {
      if (op.inner() instanceof HostedCoefficientOperator hosted) {
        total = total.plus(hosted.phaseTimes());
      }
    }
    return total;
  }

  @Override
  public HeLoraOperator apply(int dimension) {
    var parameters = HostedCoefficientOperator.parametersFor(dimension);
    return byLogN.computeIfAbsent(
        parameters.logN(),
        n -> {
          try {
            return new BatchedOperator(
                new HostedCoefficientOperator(
                    parameters, SecureRandom.getInstance("DRBG"), backend),
                MAX_BATCH_TOKENS);
          } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no DRBG", e);
          }
        });
  }
}
