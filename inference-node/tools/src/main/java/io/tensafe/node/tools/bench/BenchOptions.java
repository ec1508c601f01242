package io.tensafe.node.tools.bench;

import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.MoeShape;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.WeightPrecision;
import java.io.IOException;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** The options the decode benchmarks share: which model, which rank, and the output form. */
final class BenchOptions {
  @Option(
      names = "--model",
      defaultValue = "tiny",
      description =
          "tiny, qwen2.5-1.5b-shape or qwen3-30b-a3b-shape (Qwen3-MoE; with --layers)"
              + " (default: ${DEFAULT-VALUE})")
  String model;

  @Option(
      names = "--layers",
      description = "keep only this many layers of the shape (the 30B shape fits memory so)")
  Integer layers;

  @Option(
      names = "--adapter-rank",
      defaultValue = "32",
      description = "LoRA rank (default: ${DEFAULT-VALUE})")
  int rank;

  @Option(
      names = "--tokens",
      defaultValue = "8",
      description = "tokens timed per variant after the warm-up (default: ${DEFAULT-VALUE})")
  int tokens;

  @Option(
      names = "--attention-only",
      description =
          "adapt q, k, v and o only (on qwen3-30b-a3b-shape every expert's gate, up and down are"
              + " adapted too unless this is given)")
  boolean attentionOnly;

  @Option(names = "--json", description = "one JSON object instead of a line")
  boolean json;

  @Option(
      names = "--widen-weights",
      description =
          "hold the BF16 weights widened to F32 (as tensafe.node.widen-weights=true does) instead"
              + " of in two bytes")
  boolean widenWeights;

  /**
   * The generated model and rank-r attention adapters these options name.
   *
   * @param parameters the generated model's parameters (every tensor's elements)
   * @param fullLayers the named shape's layers before {@code --layers} cut it
   * @param expertsAdapted whether the adapter is on every expert's gate, up and down too
   */
  record Loaded(
      ModelShape shape,
      QwenDecoder decoder,
      LoraAdapter adapter,
      long parameters,
      boolean moe,
      int fullLayers,
      boolean expertsAdapted) {
    /**
     * Adapted sites a token runs per layer in hosted mode: q, k, v, o, plus gate, up, down of each
     * routed expert when the experts are adapted.
     */
    int sitesRunPerLayer() {
      return 4 + (expertsAdapted ? 3 * MoeShape.QWEN3_30B_A3B.expertsPerToken() : 0);
    }
  }

  /**
   * Generates and loads the model, and builds the adapter.
   *
   * @throws CommandLine.ParameterException for an unknown model or a rank or count out of range
   */
  Loaded load(CommandLine commandLine) throws IOException {
    System.setProperty("ai.djl.offline", "true");
    ModelShape shape = BenchModels.shape(model, rank, tokens, commandLine);
    int fullLayers = shape.layers();
    if (layers != null) {
      if (layers < 1 || layers > shape.layers()) {
        throw new CommandLine.ParameterException(
            commandLine, "--layers must be in 1.." + shape.layers() + ", was " + layers);
      }
      shape = shape.withLayers(layers);
    }
    boolean moe = model.equals("qwen3-30b-a3b-shape");
    long parameters =
        ModelGenerator.parameterCount(
            shape,
            moe ? ModelGenerator.Arch.QWEN3_MOE : ModelGenerator.Arch.QWEN3,
            MoeShape.QWEN3_30B_A3B);
    LoraAdapter adapter = BenchModels.attentionAdapter(shape, rank);
    boolean expertsAdapted = moe && !attentionOnly;
    if (expertsAdapted) {
      adapter = adapter.with(BenchModels.expertAdapter(shape, rank));
    }
    return new Loaded(
        shape,
        BenchModels.decoder(shape, moe, widenWeights ? WeightPrecision.F32 : WeightPrecision.HALF),
        adapter,
        parameters,
        moe,
        fullLayers,
        expertsAdapted);
  }
}
