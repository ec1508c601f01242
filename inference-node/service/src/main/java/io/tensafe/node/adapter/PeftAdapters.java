package io.tensafe.node.adapter;

import io.tensafe.node.model.ModelShape;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.peft.AdapterConfig;
import io.tensafe.tgsp.peft.LoraSite;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEFT LoRA folders ({@code adapter_config.json} + {@code adapter_model.safetensors}) to and from
 * {@link LoraAdapter}s for a base model. Reading checks every site against the model: the layer
 * exists, the module is one of q/k/v/o (self_attn) or gate/up/down (mlp), and A is [r, in] and B is
 * [out, r] with the module's widths. Weights in F32, F16, BF16 or F64 are widened to double.
 */
public final class PeftAdapters {
  private static final Pattern SITE =
      Pattern.compile(
          "(?:base_model\\.model\\.)?model\\.layers\\.(\\d{1,6})\\.(self_attn|mlp)\\."
              + "(q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|down_proj)");

  private PeftAdapters() {}

  /** Reads and checks the PEFT folder {@code folder} against {@code shape}. */
  public static LoraAdapter read(Path folder, ModelShape shape)
      throws IOException, AdapterRejectedException {
    PeftAdapter peft;
    try {
      peft = PeftAdapter.load(folder);
    } catch (TgspException e) {
      throw new AdapterRejectedException(e.getMessage(), e);
    }
    AdapterConfig config = peft.config();
    double scale = config.scaling().factor(config.alpha().doubleValue(), config.rank());
    Map<String, LoraAdapter.Site> sites = new HashMap<>();
    try (SafetensorsFile file = SafetensorsFile.open(peft.weights())) {
      for (LoraSite site : peft.sites()) {
        String module = modulePath(site, shape);
        double[][] a = matrix(file.read(site.a()));
        double[][] b = matrix(file.read(site.b()));
        sites.put(module, new LoraAdapter.Site(a, b, scale));
      }
    } catch (TgspException e) {
      throw new AdapterRejectedException(e.getMessage(), e);
    }
    return new LoraAdapter(sites);
  }

  private static String modulePath(LoraSite site, ModelShape shape)
      throws AdapterRejectedException {
    Matcher m = SITE.matcher(site.site());
    if (!m.matches()) {
      throw new AdapterRejectedException(
          "site "
              + site.site()
              + " is not a q/k/v/o_proj or gate/up/down_proj of a decoder layer of this model");
    }
    int layer = Integer.parseInt(m.group(1));
    String block = m.group(2);
    String module = m.group(3);
    boolean attention = LoraAdapter.ATTENTION.contains(module);
    if (attention != block.equals("self_attn")) {
      throw new AdapterRejectedException(
          "site " + site.site() + ": " + module + " is not in " + block);
    }
    if (layer >= shape.layers()) {
      throw new AdapterRejectedException(
          "site " + site.site() + ": the base model has " + shape.layers() + " layers");
    }
    int[] widths = shape.linearWidths(module).orElseThrow();
    if (site.inFeatures() != widths[0] || site.outFeatures() != widths[1]) {
      throw new AdapterRejectedException(
          "site "
              + site.site()
              + ": A is "
              + site.a().shape()
              + " and B is "
              + site.b().shape()
              + " but the base model's "
              + module
              + " maps "
              + widths[0]
              + " to "
              + widths[1]);
    }
    return "model.layers." + layer + "." + block + "." + module;
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
      String prefix = "base_model.model." + e.getKey();
      tensors.add(tensor(prefix + ".lora_A.weight", site.a()));
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
