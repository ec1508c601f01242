package io.tensafe.tgsp.peft;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one rule from a PEFT tensor name to the module it adapts, for the node (which keys its
 * decoder's sites by it) and the marketplace (which checks a private session's plan against a
 * manifest by it). A LoRA site is a decoder layer's {@code q/k/v/o_proj} (of {@code self_attn}) or
 * {@code gate/up/down_proj} (of the {@code mlp}, or of one of its experts); its tensors are named
 * {@code [base_model.model.]<module>.lora_A.weight} and {@code ...lora_B.weight}, layers and
 * experts numbered without leading zeros.
 */
public final class LoraTensorNames {
  /** The suffix of a site's down-projection ({@code A}, shape [r, in]). */
  public static final String LORA_A = ".lora_A.weight";

  /** The suffix of a site's up-projection ({@code B}, shape [out, r]). */
  public static final String LORA_B = ".lora_B.weight";

  /** What PEFT puts before a module path in a saved adapter. */
  public static final String PEFT_PREFIX = "base_model.model.";

  private static final Pattern SITE =
      Pattern.compile(
          "(?:base_model\\.model\\.)?(model\\.layers\\.(?:0|[1-9]\\d{0,5})\\."
              + "(?:self_attn|mlp|mlp\\.experts\\.(?:0|[1-9]\\d{0,6}))\\.[a-z_]+)");

  private LoraTensorNames() {}

  /**
   * The module path of site {@code site} (a tensor name without its {@link #LORA_A}/{@link #LORA_B}
   * suffix), without {@link #PEFT_PREFIX}: {@code
   * base_model.model.model.layers.1.mlp.experts.3.gate_proj} is {@code
   * model.layers.1.mlp.experts.3.gate_proj}. Empty when {@code site} is not a decoder layer's
   * attention or MLP projection.
   */
  public static Optional<String> modulePath(String site) {
    Matcher m = SITE.matcher(site);
    return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** Whether {@code tensorName} is a site's {@code lora_A} weight. */
  public static boolean isLoraA(String tensorName) {
    return tensorName.endsWith(LORA_A);
  }

  /** The site of {@code lora_A} tensor {@code tensorName}: the name without {@link #LORA_A}. */
  public static String siteOfLoraA(String tensorName) {
    if (!isLoraA(tensorName)) {
      throw new IllegalArgumentException(tensorName + " is not a lora_A weight");
    }
    return tensorName.substring(0, tensorName.length() - LORA_A.length());
  }
}
