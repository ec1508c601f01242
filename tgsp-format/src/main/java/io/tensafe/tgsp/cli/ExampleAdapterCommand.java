package io.tensafe.tgsp.cli;

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
      "q_proj and v_proj of every layer, Gaussian A and B with sigma 0.02, fixed by --seed."
    })
final class ExampleAdapterCommand implements Callable<Integer> {
  @Option(names = "--out", required = true, description = "the folder to create")
  Path out;

  @Option(names = "--layers", defaultValue = "2", description = "layers (default: 2)")
  int layers;

  @Option(names = "--hidden", defaultValue = "896", description = "hidden size (default: 896)")
  int hidden;

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
  public Integer call() throws IOException {
    if (Files.exists(out)) {
      throw new IllegalArgumentException(out + " already exists");
    }
    new SyntheticAdapter(
            layers, hidden, rank, 2 * rank, List.of("q_proj", "v_proj"), dtype, baseModel)
        .write(out, seed);
    System.out.println("wrote a random rank-" + rank + " PEFT adapter to " + out);
    return 0;
  }
}
