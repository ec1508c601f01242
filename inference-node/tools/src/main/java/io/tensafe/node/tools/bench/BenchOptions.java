package io.tensafe.node.tools.bench;

import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.MoeShape;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
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

  @Option(names = "--json", description = "one JSON object instead of a line")
  boolean json;

  /**
   * The generated model and rank-r attention adapters these options name.
   *
   * @param parameters the generated model's parameters (every tensor's elements)
   */
  record Loaded(
      ModelShape shape, QwenDecoder decoder, LoraAdapter adapter, long parameters, boolean moe) {
    /**
     * Adapted sites a token runs per layer: q, k, v, o, plus gate, up, down of each routed expert.
     */
    int sitesRunPerLayer() {
      return 4 + (moe ? 3 * MoeShape.QWEN3_30B_A3B.expertsPerToken() : 0);
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
    if (moe) {
      adapter = adapter.with(BenchModels.expertAdapter(shape, rank));
    }
    return new Loaded(shape, BenchModels.decoder(shape, moe), adapter, parameters, moe);
  }
}
