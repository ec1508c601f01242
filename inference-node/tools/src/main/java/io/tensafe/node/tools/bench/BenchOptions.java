package io.tensafe.node.tools.bench;

import io.tensafe.node.model.ModelShape;
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
      description = "tiny or qwen2.5-1.5b-shape (default: ${DEFAULT-VALUE})")
  String model;

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

  /** The generated model and rank-r attention adapters these options name. */
  record Loaded(ModelShape shape, QwenDecoder decoder, LoraAdapter adapter) {}

  /**
   * Generates and loads the model, and builds the adapter.
   *
   * @throws CommandLine.ParameterException for an unknown model or a rank or count out of range
   */
  Loaded load(CommandLine commandLine) throws IOException {
    System.setProperty("ai.djl.offline", "true");
    ModelShape shape = BenchModels.shape(model, rank, tokens, commandLine);
    return new Loaded(shape, BenchModels.decoder(shape), BenchModels.attentionAdapter(shape, rank));
  }
}
