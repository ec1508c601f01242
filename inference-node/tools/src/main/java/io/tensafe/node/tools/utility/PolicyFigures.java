package io.tensafe.node.tools.utility;

import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.dp.ZcdpBudget;
import io.tensafe.tgsp.peft.LoraInputs;
import java.util.OptionalLong;

/**
 * The budget side of a policy's figures: the releases a token of the adapter costs, counted as the
 * marketplace counts them ({@code LoraInputs}), and the tokens an organisation can run per period.
 */
final class PolicyFigures {
  private PolicyFigures() {}

  /** The adapter's noised sites per token (every routed site, {@code LoraInputs}). */
  static int releasesPerToken(LoraAdapter adapter) {
    return Math.max(
        1,
        LoraInputs.releasesPerToken(
            adapter.sites().keySet().stream().map(site -> site + ".lora_A.weight").toList()));
  }

  /** Tokens per period at {@code z}, ε and δ; empty without noise. */
  static OptionalLong tokensPerPeriod(LoraAdapter adapter, double z, double epsilon, double delta) {
    return ZcdpBudget.tokensPerPeriod(z, epsilon, delta, releasesPerToken(adapter));
  }
}
