package io.tensafe.tgsp.packaging;

import io.tensafe.tgsp.manifest.Manifest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Measures what a buyer gets of an adapter under a DP policy ({@link Manifest.MeasuredEffect}):
 * {@code tgsp pack} holds the weights, so it measures before it signs (ADR 0035). The measurement
 * runs the base model, which tgsp-format does not carry: the inference node's tools provide the
 * implementation ({@code ./tensafe tgsp pack --model-dir}).
 */
@FunctionalInterface
public interface EffectMeasurer {
  /** A measurer for a CLI run without the node's runtime: it says how to get one. */
  EffectMeasurer UNAVAILABLE =
      (peft, modelDir, policy, prompts) -> {
        throw new IllegalArgumentException(
            "measuring the effect runs the base model, which this jar does not carry: run"
                + " ./tensafe tgsp pack (the node's tools) to use --model-dir");
      };

  /**
   * @param peft the creator's PEFT folder
   * @param modelDir the base model's folder (config.json, weights, tokenizer, chat template)
   * @param policy the policy to measure
   * @param prompts the creator's user messages; empty for the project's reference prompts
   */
  Manifest.MeasuredEffect measure(
      Path peft, Path modelDir, Manifest.DpPolicy policy, List<String> prompts) throws IOException;
}
