package io.tensafe.tgsp.peft;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What differential privacy counts for an adapter, per token: its noised site outputs (ADR 0035).
 * Under a DP policy that adds noise, a node noises every adapted site's output for every token the
 * model processes (prompt tokens in prefill and generated tokens fed back), in both modes, so one
 * site's output for one token is one <em>release</em> and a token costs {@link #releasesPerToken}
 * releases. Inputs are clipped, never noised, so sites that read the same input do not share a
 * release.
 *
 * <p>In a mixture-of-experts layer a hosted node runs a token's adapter only on the experts it is
 * routed to, at most {@code expertsPerToken} per layer: the count is a bound per token, the layer's
 * {@code expertsPerToken} experts with the most adapted modules, exact when every expert carries
 * the same modules (PEFT's {@code target_modules} adapt every expert).
 *
 * <p>The marketplace reserves and settles DP budgets in releases counted this way, and the
 * inference node counts the releases it makes the same way; tests in the node check the two agree.
 */
public final class LoraInputs {
  private static final Pattern EXPERT = Pattern.compile("(.*\\.mlp)\\.experts\\.(\\d+)\\.(\\w+)");

  private LoraInputs() {}

  /** Whether any of these tensor names adapts a mixture-of-experts layer's experts. */
  public static boolean readsExperts(Collection<String> tensorNames) {
    return tensorNames.stream().anyMatch(n -> LoraTensorNames.isLoraA(n) && isExpert(n));
  }

  private static boolean isExpert(String tensorName) {
    return EXPERT.matcher(LoraTensorNames.siteOfLoraA(tensorName)).matches();
  }

  /**
   * As {@link #releasesPerToken(Collection, int)} for a model whose experts per token are unknown:
   * every adapted expert's sites are counted, an upper bound.
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
    Set<String> sites = new HashSet<>();
    Map<String, Map<String, Set<String>>> expertModulesPerLayer = new HashMap<>();
    for (String name : tensorNames) {
      if (!LoraTensorNames.isLoraA(name)) {
        continue;
      }
      String site = LoraTensorNames.siteOfLoraA(name);
      Matcher expert = EXPERT.matcher(site);
      if (expert.matches()) {
        expertModulesPerLayer
            .computeIfAbsent(expert.group(1), k -> new HashMap<>())
            .computeIfAbsent(expert.group(2), k -> new HashSet<>())
            .add(expert.group(3));
      } else {
        sites.add(site);
      }
    }
    int routed = 0;
    for (Map<String, Set<String>> experts : expertModulesPerLayer.values()) {
      routed +=
          experts.values().stream()
              .map(Set::size)
              .sorted(java.util.Comparator.reverseOrder())
              .limit(expertsPerToken)
              .mapToInt(Integer::intValue)
              .sum();
    }
    return sites.size() + routed;
  }
}
