package io.tensafe.tgsp.peft;

import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsWriter;
import io.tensafe.tgsp.safetensors.Tensor;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Writes a PEFT LoRA folder with random weights, for demos, tests and benchmarks: {@code layers}
 * layers × the given modules, Gaussian A and B with σ = 0.02, fixed by {@code seed}. Each module
 * has its base model's widths when {@code shape} is given (so the adapter fits that model), else
 * square {@code hidden × hidden} projections. Not a trained adapter: it changes a model's outputs,
 * but not usefully.
 *
 * @param baseModel written as {@code base_model_name_or_path}
 * @param shape the base model's widths, or null for square projections of width {@code hidden}
 */
public record SyntheticAdapter(
    int layers,
    int hidden,
    int rank,
    int alpha,
    List<String> modules,
    DType dtype,
    String baseModel,
    BaseModelShape shape) {
  /** Square {@code hidden × hidden} projections. */
  public SyntheticAdapter(
      int layers,
      int hidden,
      int rank,
      int alpha,
      List<String> modules,
      DType dtype,
      String baseModel) {
    this(layers, hidden, rank, alpha, modules, dtype, baseModel, null);
  }

  /** Modules of {@code shape}'s widths, for its first {@code layers} layers. */
  public static SyntheticAdapter fitting(
      BaseModelShape shape,
      int layers,
      int rank,
      int alpha,
      List<String> modules,
      DType dtype,
      String baseModel) {
    return new SyntheticAdapter(
        layers, shape.hiddenSize(), rank, alpha, modules, dtype, baseModel, shape);
  }

  public SyntheticAdapter {
    modules = List.copyOf(modules);
    if (layers < 1
        || hidden < 1
        || rank < 1
        || rank > AdapterConfig.MAX_RANK
        || modules.isEmpty()) {
      throw new IllegalArgumentException("synthetic adapter dimensions out of range");
    }
  }

  private int[] widths(String module) {
    if (shape == null) {
      return new int[] {hidden, hidden};
    }
    return shape
        .linearWidths(module)
        .orElseThrow(() -> new IllegalArgumentException("the base model has no module " + module));
  }

  /** Writes {@code adapter_config.json} and {@code adapter_model.safetensors} into {@code dir}. */
  public Path write(Path dir, long seed) throws IOException {
    Files.createDirectories(dir);
    SplittableRandom random = new SplittableRandom(seed);
    List<Tensor> tensors = new ArrayList<>();
    for (int layer = 0; layer < layers; layer++) {
      for (String module : modules) {
        int[] widths = widths(module);
        String block = BaseModelShape.isAttention(module) ? ".self_attn." : ".mlp.";
        String site = "base_model.model.model.layers." + layer + block + module;
        tensors.add(gaussian(site + ".lora_A.weight", rank, widths[0], random));
        tensors.add(gaussian(site + ".lora_B.weight", widths[1], rank, random));
      }
    }
    try (OutputStream out = Files.newOutputStream(dir.resolve(PeftAdapter.WEIGHTS_FILE))) {
      SafetensorsWriter.write(tensors, Map.of("format", "pt"), out);
    }
    String targets = String.join("\", \"", modules);
    Files.writeString(
        dir.resolve(PeftAdapter.CONFIG_FILE),
        """
        {
          "peft_type": "LORA",
          "task_type": "CAUSAL_LM",
          "base_model_name_or_path": "%s",
          "r": %d,
          "lora_alpha": %d,
          "lora_dropout": 0.05,
          "use_rslora": false,
          "use_dora": false,
          "bias": "none",
          "modules_to_save": null,
          "target_modules": ["%s"]
        }
        """
            .formatted(baseModel, rank, alpha, targets),
        StandardCharsets.UTF_8);
    return dir;
  }

  private Tensor gaussian(String name, int rows, int columns, SplittableRandom random) {
    double[] v = new double[rows * columns];
    for (int i = 0; i < v.length; i++) {
      v[i] = random.nextGaussian() * 0.02;
    }
    return Tensor.of(name, dtype, List.of((long) rows, (long) columns), v);
  }
}
