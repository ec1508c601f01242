package io.tensafe.tgsp.peft;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The distinct inputs an adapter's LoRA sites read for each token, which is what differential
 * privacy counts: a node clips and noises each input once and shares it between the sites that read
 * it ({@code q_proj}, {@code k_proj} and {@code v_proj} read the attention input; {@code gate_proj}
 * and {@code up_proj} the MLP input; every other module reads an input of its own). One such noised
 * input is one <em>release</em>, so a token costs {@link #releasesPerToken} releases, for every
 * token the model processes: prompt tokens in prefill and generated tokens fed back.
 *
 * <p>The marketplace reserves and settles DP budgets in releases counted this way, and the
 * inference node counts the releases it makes the same way; a test in the node checks the two
 * agree.
 */
public final class LoraInputs {
  private static final Map<String, String> SHARED_INPUT =
      Map.of(
          "q_proj", "attention-input",
          "k_proj", "attention-input",
          "v_proj", "attention-input",
          "gate_proj", "mlp-input",
          "up_proj", "mlp-input");

  private LoraInputs() {}

  /**
   * Releases per processed token for an adapter with these tensor names (PEFT names such as {@code
   * base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight}; names that are not a {@code
   * lora_A} weight are ignored). Range: 0 (no lora_A tensor) to the number of lora_A tensors.
   */
  public static int releasesPerToken(Collection<String> tensorNames) {
    Set<String> inputs = new HashSet<>();
    for (String name : tensorNames) {
      if (!name.endsWith(".lora_A.weight")) {
        continue;
      }
      String site = name.substring(0, name.length() - ".lora_A.weight".length());
      int dot = site.lastIndexOf('.');
      String parent = dot < 0 ? "" : site.substring(0, dot);
      String module = site.substring(dot + 1);
      inputs.add(parent + "/" + SHARED_INPUT.getOrDefault(module, module));
    }
    return inputs.size();
  }
}
