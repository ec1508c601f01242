package io.tensafe.tgsp.peft;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The distinct inputs an adapter's LoRA sites read for each token, which is what differential
 * privacy counts: a node clips and noises each input once and shares it between the sites that read
 * it ({@code q_proj}, {@code k_proj} and {@code v_proj} read the attention input; {@code gate_proj}
 * and {@code up_proj} the MLP input; every other module reads an input of its own). One such noised
 * input is one <em>release</em>, so a token costs {@link #releasesPerToken} releases, for every
 * token the model processes: prompt tokens in prefill and generated tokens fed back.
 *
 * <p>In a mixture-of-experts layer every expert a token is routed to reads the same MLP input, so
 * the experts' gate and up projections share one release per token and layer; each routed expert's
 * {@code down_proj} reads that expert's own activation, one release each, and a token runs at most
 * {@code expertsPerToken} experts per layer. The count is then a bound per token, exact when a
 * layer's adapted experts all carry the same modules and number at least {@code expertsPerToken}
 * (PEFT's {@code target_modules} adapt every expert).
 *
 * <p>The marketplace reserves and settles DP budgets in releases counted this way, and the
 * inference node counts the releases it makes the same way; tests in the node check the two agree.
 */
public final class LoraInputs {
  private static final Map<String, String> SHARED_INPUT =
      Map.of(
          "q_proj", "attention-input",
          "k_proj", "attention-input",
          "v_proj", "attention-input",
          "gate_proj", "mlp-input",
          "up_proj", "mlp-input");

  private static final Pattern EXPERT = Pattern.compile("(.*\\.mlp)\\.experts\\.(\\d+)\\.(\\w+)");

  private LoraInputs() {}

  /** Whether any of these tensor names adapts a mixture-of-experts layer's experts. */
  public static boolean readsExperts(Collection<String> tensorNames) {
    return tensorNames.stream().anyMatch(n -> n.endsWith(".lora_A.weight") && isExpert(n));
  }

  private static boolean isExpert(String tensorName) {
    return EXPERT
        .matcher(tensorName.substring(0, tensorName.length() - ".lora_A.weight".length()))
        .matches();
  }

  /**
   * As {@link #releasesPerToken(Collection, int)} for a model whose experts per token are unknown:
   * every adapted expert's {@code down_proj} is counted, an upper bound.
   */
  public static int releasesPerToken(Collection<String> tensorNames) {
    return releasesPerToken(tensorNames, Integer.MAX_VALUE);
  }

  /**
   * Releases per processed token for an adapter with these tensor names (PEFT names such as {@code
   * base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight}; names that are not a {@code
   * lora_A} weight are ignored) on a model that routes each token to {@code expertsPerToken} (≥ 1)
   * experts per sparse layer. Range: 0 (no lora_A tensor) to the number of lora_A tensors.
   */
  public static int releasesPerToken(Collection<String> tensorNames, int expertsPerToken) {
    if (expertsPerToken < 1) {
      throw new IllegalArgumentException("experts per token must be at least 1");
    }
    Set<String> inputs = new HashSet<>();
    Map<String, Integer> expertOutputsPerLayer = new HashMap<>();
    Set<String> expertOutputs = new HashSet<>();
    for (String name : tensorNames) {
      if (!name.endsWith(".lora_A.weight")) {
        continue;
      }
      String site = name.substring(0, name.length() - ".lora_A.weight".length());
      Matcher expert = EXPERT.matcher(site);
      if (expert.matches()) {
        String mlp = expert.group(1);
        String module = expert.group(3);
        if (SHARED_INPUT.getOrDefault(module, "").equals("mlp-input")) {
          inputs.add(mlp + "/expert-input");
        } else if (expertOutputs.add(site)) {
          expertOutputsPerLayer.merge(mlp, 1, Integer::sum);
        }
        continue;
      }
      int dot = site.lastIndexOf('.');
      String parent = dot < 0 ? "" : site.substring(0, dot);
      String module = site.substring(dot + 1);
      inputs.add(parent + "/" + SHARED_INPUT.getOrDefault(module, module));
    }
    int routed = 0;
    for (int perLayer : expertOutputsPerLayer.values()) {
      routed += Math.min(perLayer, expertsPerToken);
    }
    return inputs.size() + routed;
  }
}
