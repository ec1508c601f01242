package io.tensafe.tgsp.peft;

import java.util.List;

/**
 * The mixture-of-experts part of a Qwen3-MoE base model ({@code model_type} {@code qwen3_moe}), as
 * far as adapters and privacy accounting need it: which layers are sparse, how many experts they
 * hold, how many of them each token runs, and one expert's SwiGLU width.
 *
 * @param experts {@code num_experts}, in 1..{@link BaseModelShape#MAX_DIMENSION}
 * @param expertsPerToken {@code num_experts_per_tok}, in 1..experts: the experts a token runs in
 *     each sparse layer
 * @param intermediateSize {@code moe_intermediate_size}, ≥ 1
 * @param sparseStep {@code decoder_sparse_step}, ≥ 1: layer i is sparse when {@code (i + 1) %
 *     sparseStep == 0} and i is not in {@code mlpOnlyLayers}
 * @param mlpOnlyLayers {@code mlp_only_layers}: layers (from 0) that keep a dense MLP
 */
public record ExpertShape(
    int experts,
    int expertsPerToken,
    int intermediateSize,
    int sparseStep,
    List<Integer> mlpOnlyLayers) {
  public ExpertShape {
    mlpOnlyLayers = List.copyOf(mlpOnlyLayers);
    if (experts < 1
        || experts > BaseModelShape.MAX_DIMENSION
        || expertsPerToken < 1
        || expertsPerToken > experts
        || intermediateSize < 1
        || intermediateSize > BaseModelShape.MAX_DIMENSION
        || sparseStep < 1
        || mlpOnlyLayers.stream().anyMatch(l -> l < 0)) {
      throw new IllegalArgumentException(
          "inconsistent mixture-of-experts shape: "
              + experts
              + " experts, "
              + expertsPerToken
              + " per token, width "
              + intermediateSize
              + ", sparse step "
              + sparseStep);
    }
  }

  /** Whether layer {@code layer} (from 0) routes its tokens to experts. */
  public boolean sparse(int layer) {
    return !mlpOnlyLayers.contains(layer) && (layer + 1) % sparseStep == 0;
  }

  /** The input and output widths {@code [in, out]} of an expert's gate, up or down projection. */
  int[] widths(String module, int hiddenSize) {
    return switch (module) {
      case "gate_proj", "up_proj" -> new int[] {hiddenSize, intermediateSize};
      case "down_proj" -> new int[] {intermediateSize, hiddenSize};
      default -> null;
    };
  }
}
