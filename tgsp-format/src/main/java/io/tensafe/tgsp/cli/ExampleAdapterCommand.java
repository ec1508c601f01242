package io.tensafe.tgsp.cli;

import io.tensafe.tgsp.peft.BaseModelShape;
import io.tensafe.tgsp.peft.SyntheticAdapter;
import io.tensafe.tgsp.safetensors.DType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tgsp example-adapter --out DIR}: a random PEFT folder for demos and tests. */
@Command(
    name = "example-adapter",
    mixinStandardHelpOptions = true,
    description = {
      "Write a random (untrained) PEFT LoRA folder for demos and tests.",
      "q_proj and v_proj of every layer, Gaussian A and B with sigma 0.02, fixed by --seed.",
      "The modules have the base model's widths: those of --base-model-config, else of",
      "Qwen2.5-0.5B (the default --base-model); --hidden instead makes square projections."
    })
final class ExampleAdapterCommand implements Callable<Integer> {
  @Option(names = "--out", required = true, description = "the folder to create")
  Path out;

  @Option(names = "--layers", defaultValue = "2", description = "layers (default: 2)")
  int layers;

  @Option(
      names = "--hidden",
      description = "square hidden x hidden projections of this width, for tests (default: none)")
  Integer hidden;

  @Option(
      names = "--base-model-config",
      description = "the base model's config.json: the adapter gets its module widths")
  Path baseModelConfig;

  @Option(names = "--rank", defaultValue = "8", description = "LoRA rank (default: 8)")
  int rank;

  @Option(names = "--dtype", defaultValue = "F32", description = "F32, F16, BF16 or F64")
  DType dtype;

  @Option(names = "--seed", defaultValue = "1", description = "random seed (default: 1)")
  long seed;

  @Option(
      names = "--base-model",
      defaultValue = "Qwen/Qwen2.5-0.5B",
      description = "base_model_name_or_path (default: ${DEFAULT-VALUE})")
  String baseModel;

  @Override
  public Integer call() throws IOException, io.tensafe.tgsp.TgspException {
    if (Files.exists(out)) {
      throw new IllegalArgumentException(out + " already exists");
    }
    List<String> modules = List.of("q_proj", "v_proj");
    SyntheticAdapter adapter;
    if (baseModelConfig != null) {
      BaseModelShape shape = PackCommand.readShape(baseModelConfig);
      adapter =
          SyntheticAdapter.fitting(
              shape, Math.min(layers, shape.layers()), rank, 2 * rank, modules, dtype, baseModel);
    } else if (hidden != null) {
      adapter = new SyntheticAdapter(layers, hidden, rank, 2 * rank, modules, dtype, baseModel);
    } else {
      adapter =
          SyntheticAdapter.fitting(
              BaseModelShape.QWEN25_0_5B, layers, rank, 2 * rank, modules, dtype, baseModel);
    }
    adapter.write(out, seed);
    System.out.println("wrote a random rank-" + rank + " PEFT adapter to " + out);
    return 0;
  }
}
