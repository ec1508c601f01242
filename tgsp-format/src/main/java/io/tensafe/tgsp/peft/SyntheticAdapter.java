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
 * square {@code hidden × hidden} projections. On a mixture-of-experts model's sparse layers an MLP
 * module is adapted on every expert ({@code mlp.experts.E.gate_proj}), as PEFT's {@code
 * target_modules} match it. Not a trained adapter: it changes a model's outputs, but not usefully.
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

  private void add(List<Tensor> tensors, String site, int[] widths, SplittableRandom random) {
    tensors.add(gaussian(site + ".lora_A.weight", rank, widths[0], random));
    tensors.add(gaussian(site + ".lora_B.weight", widths[1], rank, random));
  }

  /** Writes {@code adapter_config.json} and {@code adapter_model.safetensors} into {@code dir}. */
  public Path write(Path dir, long seed) throws IOException {
    Files.createDirectories(dir);
    SplittableRandom random = new SplittableRandom(seed);
    List<Tensor> tensors = new ArrayList<>();
    for (int layer = 0; layer < layers; layer++) {
      for (String module : modules) {
        String layerPath = "base_model.model.model.layers." + layer;
        if (BaseModelShape.isAttention(module)) {
          add(tensors, layerPath + ".self_attn." + module, widths(module), random);
          continue;
        }
        final int l = layer;
        java.util.Optional<ExpertShape> experts =
            shape == null ? java.util.Optional.empty() : shape.moe().filter(e -> e.sparse(l));
        if (experts.isEmpty()) {
          add(tensors, layerPath + ".mlp." + module, widths(module), random);
          continue;
        }
        // As PEFT's target_modules match it: the module of every expert of a sparse layer.
        for (int e = 0; e < experts.get().experts(); e++) {
          add(
              tensors,
              layerPath + ".mlp.experts." + e + "." + module,
              experts.get().widths(module, hidden),
              random);
        }
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
