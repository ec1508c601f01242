package io.tensafe.tgsp.peft;

import io.tensafe.tgsp.safetensors.TensorInfo;

/**
 * One adapted linear layer: {@code W' = W + s·B·A}.
 *
 * @param site the layer's module path, e.g. "base_model.model.model.layers.0.self_attn.q_proj"
 * @param a {@code lora_A.weight}, shape [r, in]
 * @param b {@code lora_B.weight}, shape [out, r]
 */
public record LoraSite(String site, TensorInfo a, TensorInfo b) {
  /** The module's short name, e.g. "q_proj". */
  public String module() {
    return site.substring(site.lastIndexOf('.') + 1);
  }

  /** Input features (columns of A). */
  public long inFeatures() {
    return a.shape().get(1);
  }

  /** Output features (rows of B). */
  public long outFeatures() {
    return b.shape().get(0);
  }
}
