package io.tensafe.node.model;

import java.util.List;

/**
 * The mixture-of-experts part of a Qwen3-MoE {@code config.json} ({@code model_type} {@code
 * qwen3_moe}): each sparse layer's MLP is a router over {@code experts} SwiGLU experts, of which
 * each token runs the {@code expertsPerToken} with the highest router probability.
 *
 * @param experts {@code num_experts}, at least 1
 * @param expertsPerToken {@code num_experts_per_tok}, in [1, experts]
 * @param expertIntermediateSize {@code moe_intermediate_size}: one expert's SwiGLU width, ≥ 1
 * @param normTopKProb {@code norm_topk_prob}: the chosen experts' probabilities are renormalised to
 *     sum 1 before they weight the experts' outputs
 * @param sparseStep {@code decoder_sparse_step}, ≥ 1: layer i is sparse when {@code (i + 1) %
 *     sparseStep == 0} and it is not in {@code mlpOnlyLayers}
 * @param mlpOnlyLayers {@code mlp_only_layers}: layers that keep a dense MLP
 */
public record MoeShape(
    int experts,
    int expertsPerToken,
    int expertIntermediateSize,
    boolean normTopKProb,
    int sparseStep,
    List<Integer> mlpOnlyLayers) {

  /** Qwen3-30B-A3B's experts: 128 of width 768, 8 per token, renormalised, every layer sparse. */
  public static final MoeShape QWEN3_30B_A3B = new MoeShape(128, 8, 768, true, 1, List.of());

  public MoeShape {
    mlpOnlyLayers = List.copyOf(mlpOnlyLayers);
    if (experts < 1
        || expertsPerToken < 1
        || expertsPerToken > experts
        || expertIntermediateSize < 1
        || sparseStep < 1) {
      throw new IllegalArgumentException("inconsistent mixture-of-experts dimensions");
    }
  }

  /** Whether layer {@code layer} (from 0) has the sparse MLP. */
  public boolean sparse(int layer) {
    return !mlpOnlyLayers.contains(layer) && (layer + 1) % sparseStep == 0;
  }
}
