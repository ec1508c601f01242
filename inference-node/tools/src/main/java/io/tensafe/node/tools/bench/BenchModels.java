package io.tensafe.node.tools.bench;

import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.MoeShape;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.WeightPrecision;
import io.tensafe.tgsp.safetensors.DType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import picocli.CommandLine;

/** The model and adapter the decode benchmarks run: a generated model and attention adapters. */
final class BenchModels {
  private BenchModels() {}

  /**
   * The shape {@code --model} names.
   *
   * @throws CommandLine.ParameterException unless it is tiny, qwen2.5-1.5b-shape or
   *     qwen3-30b-a3b-shape, or the rank and token count are out of range
   */
  static ModelShape shape(String model, int rank, int tokens, CommandLine commandLine) {
    ModelShape shape =
        switch (model) {
          case "tiny" -> ModelShape.TINY;
          case "qwen2.5-1.5b-shape" -> ModelShape.QWEN25_1_5B;
          case "qwen3-30b-a3b-shape" -> ModelShape.QWEN3_30B_A3B;
          default ->
              throw new CommandLine.ParameterException(
                  commandLine,
                  "--model must be tiny, qwen2.5-1.5b-shape or qwen3-30b-a3b-shape, was " + model);
        };
    if (rank < 1 || rank > 256 || tokens < 1) {
      throw new CommandLine.ParameterException(commandLine, "rank in 1..256, tokens >= 1");
    }
    return shape;
  }

  /**
   * Writes a generated model of {@code shape} (BF16, seed 1; Qwen3-MoE with Qwen3-30B-A3B's experts
   * when {@code moe}), loads it holding its weights as {@code precision} says and deletes the
   * files.
   */
  static QwenDecoder decoder(ModelShape shape, boolean moe, WeightPrecision precision)
      throws IOException {
    Path dir = folder(shape, moe);
    try {
      return decoder(dir, precision);
    } finally {
      delete(dir);
    }
  }

  /**
   * Writes a generated model of {@code shape} (BF16, seed 1, the Qwen3 architecture; Qwen3-MoE with
   * Qwen3-30B-A3B's experts when {@code moe}) into a new temporary folder and returns it; the
   * caller deletes it ({@link #delete}).
   */
  static Path folder(ModelShape shape, boolean moe) throws IOException {
    Path dir = Files.createTempDirectory("bench-model");
    System.err.printf(Locale.ROOT, "generating %s ...%n", shape.name());
    ModelGenerator.write(
        shape,
        DType.BF16,
        1,
        dir,
        s -> {},
        moe ? ModelGenerator.Arch.QWEN3_MOE : ModelGenerator.Arch.QWEN3,
        MoeShape.QWEN3_30B_A3B);
    return dir;
  }

  /** The model in {@code dir}, its weights held as {@code precision} says. */
  static QwenDecoder decoder(Path dir, WeightPrecision precision) throws IOException {
    return new QwenDecoder(ModelFolder.load(dir), precision);
  }

  /** Deletes {@code dir} and everything in it. */
  static void delete(Path dir) throws IOException {
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** Rank-{@code rank} adapters on every expert's gate, up and down (α = 2r, B ~ N(0, 0.01²)). */
  static LoraAdapter expertAdapter(ModelShape shape, int rank) {
    return LoraAdapter.randomForExperts(
        shape, MoeShape.QWEN3_30B_A3B, rank, LoraAdapter.scale(2.0 * rank, rank, false), 0.01, 8);
  }

  /** Rank-{@code rank} adapters on q, k, v and o of every layer (α = 2r, B ~ N(0, 0.01²)). */
  static LoraAdapter attentionAdapter(ModelShape shape, int rank) {
    return LoraAdapter.randomForAttention(
        shape, rank, LoraAdapter.scale(2.0 * rank, rank, false), 0.01, 7);
  }
}
