package io.tensafe.node.adapter;

import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.peft.AdapterConfig;
import io.tensafe.tgsp.peft.BaseModelShape;
import io.tensafe.tgsp.peft.LoraSite;
import io.tensafe.tgsp.peft.LoraTensorNames;
import io.tensafe.tgsp.peft.PeftAdapter;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.SafetensorsWriter;
import io.tensafe.tgsp.safetensors.Tensor;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * PEFT LoRA folders ({@code adapter_config.json} + {@code adapter_model.safetensors}) to and from
 * {@link LoraAdapter}s for a base model. Reading checks every site against the model ({@link
 * BaseModelShape#incompatibilities}): the layer exists, the module is one of q/k/v/o (self_attn),
 * gate/up/down (a dense mlp) or an expert's gate/up/down ({@code mlp.experts.E}, in a Qwen3-MoE
 * model's sparse layers only), and A is [r, in] and B is [out, r] with the module's widths. Weights
 * in F32, F16, BF16 or F64 are widened to double.
 */
public final class PeftAdapters {

  private PeftAdapters() {}

  /** Reads and checks the PEFT folder {@code folder} against {@code shape}. */
  public static LoraAdapter read(Path folder, BaseModelShape shape)
      throws IOException, AdapterRejectedException {
    PeftAdapter peft;
    try {
      peft = PeftAdapter.load(folder);
    } catch (TgspException e) {
      throw new AdapterRejectedException(e.getMessage(), e);
    }
    requireFits(peft.sites(), shape);
    AdapterConfig config = peft.config();
    double scale = config.scaling().factor(config.alpha().doubleValue(), config.rank());
    Map<String, LoraAdapter.Site> sites = new HashMap<>();
    try (SafetensorsFile file = SafetensorsFile.open(peft.weights())) {
      for (LoraSite site : peft.sites()) {
        double[][] a = matrix(file.read(site.a()));
        double[][] b = matrix(file.read(site.b()));
        sites.put(modulePath(site), new LoraAdapter.Site(a, b, scale));
      }
    } catch (TgspException e) {
      throw new AdapterRejectedException(e.getMessage(), e);
    }
    return new LoraAdapter(sites);
  }

  private static void requireFits(List<LoraSite> sites, BaseModelShape shape)
      throws AdapterRejectedException {
    Map<String, List<Long>> shapes = new TreeMap<>();
    for (LoraSite site : sites) {
      modulePath(site);
      shapes.put(site.a().name(), site.a().shape());
      shapes.put(site.b().name(), site.b().shape());
    }
    List<String> problems = shape.incompatibilities(shapes);
    if (!problems.isEmpty()) {
      throw new AdapterRejectedException(
          "the adapter does not fit this model: "
              + String.join("; ", problems.subList(0, Math.min(5, problems.size())))
              + (problems.size() > 5 ? "; and " + (problems.size() - 5) + " more" : ""));
    }
  }

  /** The decoder's key for a site: its PEFT module path without {@code base_model.model.}. */
  private static String modulePath(LoraSite site) throws AdapterRejectedException {
    java.util.Optional<String> path = LoraTensorNames.modulePath(site.site());
    if (path.isEmpty()) {
      throw new AdapterRejectedException(
          "site "
              + site.site()
              + " is not a q/k/v/o_proj or gate/up/down_proj (of the MLP or of an expert) of a"
              + " decoder layer, numbered without leading zeros");
    }
    return path.get();
  }

  private static double[][] matrix(Tensor t) throws AdapterRejectedException {
    int rows = Math.toIntExact(t.shape().get(0));
    int cols = Math.toIntExact(t.shape().get(1));
    double[] flat = t.values();
    double[][] m = new double[rows][cols];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        double v = flat[i * cols + j];
        if (!Double.isFinite(v)) {
          throw new AdapterRejectedException(t.name() + " holds a non-finite value");
        }
        m[i][j] = v;
      }
    }
    return m;
  }

  /**
   * Writes {@code adapter} as a PEFT folder (F32 weights) into {@code dir}, for demos, tests and
   * benchmarks. Every site must share one rank; {@code alpha} is written so that α/r equals the
   * sites' scale.
   */
  public static Path write(LoraAdapter adapter, String baseModel, Path dir) throws IOException {
    TreeMap<String, LoraAdapter.Site> sorted = new TreeMap<>(adapter.sites());
    int rank = sorted.firstEntry().getValue().rank();
    double scale = sorted.firstEntry().getValue().scale();
    List<Tensor> tensors = new ArrayList<>();
    TreeSet<String> modules = new TreeSet<>();
    for (Map.Entry<String, LoraAdapter.Site> e : sorted.entrySet()) {
      LoraAdapter.Site site = e.getValue();
      if (site.rank() != rank || site.scale() != scale) {
        throw new IllegalArgumentException("every site must share one rank and scale");
      }
      String prefix = LoraTensorNames.PEFT_PREFIX + e.getKey();
      tensors.add(tensor(prefix + LoraTensorNames.LORA_A, site.a()));
      tensors.add(tensor(prefix + ".lora_B.weight", site.b()));
      modules.add(e.getKey().substring(e.getKey().lastIndexOf('.') + 1));
    }
    Files.createDirectories(dir);
    try (OutputStream out = Files.newOutputStream(dir.resolve(PeftAdapter.WEIGHTS_FILE))) {
      SafetensorsWriter.write(tensors, Map.of("format", "pt"), out);
    }
    String config =
        """
        {"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "%s",
         "r": %d, "lora_alpha": %s, "use_rslora": false, "use_dora": false, "bias": "none",
         "target_modules": ["%s"]}
        """
            .formatted(
                baseModel, rank, Double.toString(scale * rank), String.join("\", \"", modules));
    Files.writeString(dir.resolve(PeftAdapter.CONFIG_FILE), config, StandardCharsets.UTF_8);
    return dir;
  }

  private static Tensor tensor(String name, double[][] m) {
    double[] flat = new double[m.length * m[0].length];
    for (int i = 0; i < m.length; i++) {
      System.arraycopy(m[i], 0, flat, i * m[0].length, m[0].length);
    }
    return Tensor.of(name, DType.F32, List.of((long) m.length, (long) m[0].length), flat);
  }
}
