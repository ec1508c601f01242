package io.tensafe.node.tools.utility;

import io.tensafe.node.adapter.AdapterRejectedException;
import io.tensafe.node.adapter.PeftAdapters;
import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.WeightPrecision;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.EffectMeasurer;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code tgsp pack --model-dir}'s measurement: {@link EffectMeter} on the plaintext path with the
 * policy's clip and noise (the mechanism both modes apply; {@code bench utility} measures each mode
 * too), {@value #TOKENS} tokens per prompt, the creator's prompts or the {@link
 * ReferencePrompts#BANKING reference prompts}.
 */
public final class PackEffectMeasurer implements EffectMeasurer {
  /** Greedy tokens per prompt. */
  public static final int TOKENS = 64;

  @Override
  public Manifest.MeasuredEffect measure(
      Path peft, Path modelDir, Manifest.DpPolicy policy, List<String> prompts) throws IOException {
    boolean creators = !prompts.isEmpty();
    List<long[]> rendered =
        ReferencePrompts.render(modelDir, creators ? prompts : ReferencePrompts.BANKING);
    try (QwenDecoder decoder = new QwenDecoder(ModelFolder.load(modelDir), WeightPrecision.F32)) {
      LoraAdapter adapter;
      try {
        adapter = PeftAdapters.read(peft, decoder.adapterShape());
      } catch (AdapterRejectedException e) {
        throw new IOException("the adapter does not fit " + modelDir + ": " + e.getMessage(), e);
      }
      InputPrivacy terms =
          new InputPrivacy(policy.clipNorm().doubleValue(), policy.noiseMultiplier().doubleValue());
      ProtectedPaths paths = new ProtectedPaths(decoder, adapter);
      EffectMeter.Reference reference =
          EffectMeter.reference(decoder, rendered, TOKENS, paths.noiseless());
      EffectMeter.Result r =
          EffectMeter.measure(
              decoder, reference, paths.under(terms, ProtectedPaths.Mode.PLAINTEXT));
      if (r.positions() == 0) {
        throw new IllegalArgumentException(
            "the adapter changes none of the base model's greedy tokens over "
                + rendered.size()
                + " prompts × "
                + TOKENS
                + " tokens: there is no effect to measure; give prompts it changes"
                + " (--effect-prompts)");
      }
      return new Manifest.MeasuredEffect(
          Manifest.MeasuredEffect.METHOD,
          creators ? "creator" : "default",
          rendered.size(),
          TOKENS,
          r.positions(),
          decimal(r.agreement()),
          decimal(Math.min(r.klRatio(), 1_000_000)),
          PolicyFigures.tokensPerPeriod(
              adapter,
              terms.noiseMultiplier(),
              policy.epsilonBudgetPerPeriod().doubleValue(),
              policy.delta().doubleValue()));
    }
  }

  /** Six decimal places, rounded down (a signed figure never overstates). */
  private static BigDecimal decimal(double v) {
    return BigDecimal.valueOf(v).setScale(6, RoundingMode.FLOOR).stripTrailingZeros();
  }
}
