package io.tensafe.kernels.backend;

/**
 * One site's share of a fused {@link HeBackend#hostedLoraAll} call: T tokens' coefficient-form
 * {@code m_t + e_t} (overwritten with scratch) and NTT-form c1 (read only), as for {@link
 * HeBackend#hostedLora}.
 */
public record HostedLoraCall(HostedLoraWeights weights, long[][] messages, long[][] c1) {
  public HostedLoraCall {
    HostedLoraShapes.check(weights, messages, c1);
  }
}
