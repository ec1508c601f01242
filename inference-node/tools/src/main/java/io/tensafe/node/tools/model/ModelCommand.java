package io.tensafe.node.tools.model;

import io.tensafe.node.model.ModelGenerator;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.MoeShape;
import io.tensafe.node.tools.demomodel.DemoModelBuilder;
import io.tensafe.tgsp.safetensors.DType;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tensafe model tiny}: writes a generated Qwen3-architecture model folder; {@code
 * ./tensafe model demo}: trains the demo model and its demo adapter ({@link DemoModelBuilder}).
 */
@Command(
    name = "model",
    mixinStandardHelpOptions = true,
    description = "Generated models of the Qwen3 architecture for tests, demos and benchmarks.",
    subcommands = {ModelCommand.Tiny.class, ModelCommand.Demo.class})
public final class ModelCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** {@code model tiny --out DIR --seed S [--preset P] [--dtype f32|bf16|f16] [--arch A]}. */
  @Command(
      name = "tiny",
      mixinStandardHelpOptions = true,
      description =
          "Writes config.json, the Qwen3 tokenizer and chat template, and random weights"
              + " (safetensors) of the Qwen3, Qwen2 or Qwen3-MoE architecture with Qwen's real"
              + " vocabulary.")
  static final class Tiny implements Callable<Integer> {
    @Option(names = "--out", required = true, description = "folder to write (created if absent)")
    Path out;

    @Option(
        names = "--seed",
        defaultValue = "1",
        description =
            "weights' seed; the same seed writes the same bytes (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(
        names = "--preset",
        defaultValue = "tiny",
        description =
            "tiny (width 64, 2 layers, about 10 M parameters), qwen2.5-1.5b (Qwen2.5-1.5B's"
                + " dimensions, about 1.5 G parameters) or qwen3-30b-a3b (Qwen3-30B-A3B's"
                + " dimensions and experts, with --arch qwen3-moe; use --layers)"
                + " (default: ${DEFAULT-VALUE})")
    String preset;

    @Option(
        names = "--layers",
        description =
            "keep only this many layers of the preset (cost measurements that fit memory)")
    Integer layers;

    @Option(
        names = "--dtype",
        defaultValue = "f32",
        description = "f32, bf16 or f16 (default: ${DEFAULT-VALUE})")
    String dtype;

    @Option(
        names = "--arch",
        defaultValue = "qwen3",
        description =
            "qwen3 (q/k norms), qwen2 (Qwen2 and Qwen2.5: q/k/v projection biases) or qwen3-moe"
                + " (Qwen3-MoE: 8 experts, 2 per token, layer 0 dense) (default: ${DEFAULT-VALUE})")
    String arch;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      ModelShape shape;
      try {
        shape = ModelShape.preset(preset);
        if (layers != null) {
          shape = shape.withLayers(layers);
        }
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      DType type =
          switch (dtype.toLowerCase(Locale.ROOT)) {
            case "f32" -> DType.F32;
            case "bf16" -> DType.BF16;
            case "f16" -> DType.F16;
            default ->
                throw new CommandLine.ParameterException(
                    spec.commandLine(), "--dtype must be f32, bf16 or f16, was " + dtype);
          };
      ModelGenerator.Arch architecture =
          switch (arch.toLowerCase(Locale.ROOT)) {
            case "qwen3" -> ModelGenerator.Arch.QWEN3;
            case "qwen2" -> ModelGenerator.Arch.QWEN2;
            case "qwen3-moe" -> ModelGenerator.Arch.QWEN3_MOE;
            default ->
                throw new CommandLine.ParameterException(
                    spec.commandLine(), "--arch must be qwen3, qwen2 or qwen3-moe, was " + arch);
          };
      boolean big = preset.toLowerCase(Locale.ROOT).equals("qwen3-30b-a3b");
      if (big && architecture != ModelGenerator.Arch.QWEN3_MOE) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--preset qwen3-30b-a3b needs --arch qwen3-moe");
      }
      MoeShape moe = big ? MoeShape.QWEN3_30B_A3B : ModelGenerator.TINY_MOE;
      System.err.printf(
          Locale.ROOT,
          "writing %s (%,d parameters, %s) to %s ...%n",
          shape.name(),
          ModelGenerator.parameterCount(shape, architecture, moe),
          type,
          out);
      ModelGenerator.write(shape, type, seed, out, System.err::println, architecture, moe);
      System.out.println(out.toAbsolutePath());
      return 0;
    }
  }

  /** {@code model demo --out DIR [--seed S]}. */
  @Command(
      name = "demo",
      mixinStandardHelpOptions = true,
      description =
          "Trains the demo model (Qwen3 architecture, on the King James Bible's Proverbs and"
              + " Ecclesiastes from Debian's bible-kjv-text) and its demo adapter (rank-8 LoRA on"
              + " banking questions, in DIR/demo-adapter) with Debian's PyTorch; a few minutes on"
              + " 2 cores. A folder already built with the same recipe and seed is kept.")
  static final class Demo implements Callable<Integer> {
    @Option(names = "--out", required = true, description = "folder to write (created if absent)")
    Path out;

    @Option(
        names = "--seed",
        defaultValue = "1",
        description =
            "training's seed; the same seed writes the same bytes on the same kind of machine"
                + " (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(
        names = "--bible",
        defaultValue = "/usr/bin/bible",
        description =
            "Debian bible-kjv's program, which prints the corpus (default: ${DEFAULT-VALUE})")
    Path bible;

    @Option(
        names = "--python",
        defaultValue = "/usr/bin/python3",
        description = "a Python with Debian's python3-torch (default: ${DEFAULT-VALUE})")
    Path python;

    @Option(
        names = "--base-steps",
        defaultValue = "800",
        description = "the base model's training steps (default: ${DEFAULT-VALUE})")
    int baseSteps;

    @Option(
        names = "--adapter-steps",
        defaultValue = "400",
        description = "the adapter's training steps (default: ${DEFAULT-VALUE})")
    int adapterSteps;

    @Override
    public Integer call() throws Exception {
      DemoModelBuilder.build(
          new DemoModelBuilder.Options(out, seed, bible, python, baseSteps, adapterSteps, 2),
          System.err::println);
      System.out.println(out.toAbsolutePath());
      return 0;
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new ModelCommand()).execute(args));
  }
}
