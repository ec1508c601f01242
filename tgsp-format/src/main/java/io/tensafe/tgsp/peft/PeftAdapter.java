package io.tensafe.tgsp.peft;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.SafetensorsHeader;
import io.tensafe.tgsp.safetensors.TensorInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A checked PEFT LoRA adapter folder: {@code adapter_config.json} plus {@code
 * adapter_model.safetensors}.
 *
 * <p>Invariants: every tensor is a {@code lora_A.weight} or {@code lora_B.weight} of some site;
 * every site has both; A is [r, in] and B is [out, r] with r the config's rank.
 *
 * @param config the parsed config
 * @param weights path of the safetensors file
 * @param header its checked header
 * @param sites the sites, sorted by name
 */
public record PeftAdapter(
    AdapterConfig config, Path weights, SafetensorsHeader header, List<LoraSite> sites) {
  public static final String CONFIG_FILE = "adapter_config.json";
  public static final String WEIGHTS_FILE = "adapter_model.safetensors";

  /** Largest config file read, in bytes. */
  public static final int MAX_CONFIG_BYTES = 1 << 20;

  private static final Pattern LORA_KEY = Pattern.compile("(.+)\\.lora_([AB])\\.weight");

  public PeftAdapter {
    sites = List.copyOf(sites);
  }

  /** The distinct module names adapted, sorted (e.g. [k_proj, q_proj, v_proj]). */
  public List<String> targetModules() {
    return List.copyOf(new TreeSet<>(sites.stream().map(LoraSite::module).toList()));
  }

  /** Reads and checks a PEFT folder. */
  public static PeftAdapter load(Path folder) throws IOException, TgspException {
    Path configPath = folder.resolve(CONFIG_FILE);
    Path weights = folder.resolve(WEIGHTS_FILE);
    if (!Files.isRegularFile(configPath) || !Files.isRegularFile(weights)) {
      throw new UnsupportedAdapterException(
          folder + " must hold " + CONFIG_FILE + " and " + WEIGHTS_FILE);
    }
    if (Files.size(configPath) > MAX_CONFIG_BYTES) {
      throw new io.tensafe.tgsp.io.LimitExceededException(
          CONFIG_FILE, Files.size(configPath), MAX_CONFIG_BYTES);
    }
    AdapterConfig config = AdapterConfig.parse(Files.readAllBytes(configPath));
    try (SafetensorsFile file = SafetensorsFile.open(weights)) {
      return of(config, weights, file.header());
    }
  }

  /** Pairs the tensors of {@code header} into sites and checks them against {@code config}. */
  public static PeftAdapter of(AdapterConfig config, Path weights, SafetensorsHeader header)
      throws UnsupportedAdapterException {
    Map<String, TensorInfo[]> pairs = new TreeMap<>();
    for (TensorInfo t : header.tensors()) {
      Matcher m = LORA_KEY.matcher(t.name());
      if (!m.matches()) {
        throw new UnsupportedAdapterException(describeForeignTensor(t.name()));
      }
      TensorInfo[] pair = pairs.computeIfAbsent(m.group(1), k -> new TensorInfo[2]);
      pair[m.group(2).equals("A") ? 0 : 1] = t;
    }
    if (pairs.isEmpty()) {
      throw new UnsupportedAdapterException(WEIGHTS_FILE + " holds no LoRA tensors");
    }
    List<LoraSite> sites = new ArrayList<>();
    for (Map.Entry<String, TensorInfo[]> e : pairs.entrySet()) {
      TensorInfo a = e.getValue()[0];
      TensorInfo b = e.getValue()[1];
      if (a == null || b == null) {
        throw new UnsupportedAdapterException(
            "site " + e.getKey() + " has no lora_" + (a == null ? "A" : "B") + ".weight");
      }
      checkShapes(e.getKey(), a, b, config.rank());
      sites.add(new LoraSite(e.getKey(), a, b));
    }
    return new PeftAdapter(config, weights, header, sites);
  }

  private static void checkShapes(String site, TensorInfo a, TensorInfo b, int rank)
      throws UnsupportedAdapterException {
    if (a.shape().size() != 2 || b.shape().size() != 2) {
      throw new UnsupportedAdapterException(
          "site " + site + ": lora_A " + a.shape() + " and lora_B " + b.shape() + " must be 2-D");
    }
    if (a.shape().get(0) != rank || b.shape().get(1) != rank) {
      throw new UnsupportedAdapterException(
          "site "
              + site
              + ": lora_A "
              + a.shape()
              + " and lora_B "
              + b.shape()
              + " do not match the config's rank r = "
              + rank);
    }
    if (a.shape().get(1) == 0 || b.shape().get(0) == 0) {
      throw new UnsupportedAdapterException("site " + site + " has a zero-sized dimension");
    }
  }

  private static String describeForeignTensor(String name) {
    if (name.contains("lora_magnitude_vector")) {
      return "tensor " + name + " is a DoRA magnitude vector; DoRA is not supported";
    }
    if (name.endsWith(".bias")) {
      return "tensor " + name + " is a trained bias; biases are not supported";
    }
    if (name.contains("modules_to_save")) {
      return "tensor " + name + " belongs to modules_to_save, which is not supported";
    }
    if (name.contains("lora_embedding")) {
      return "tensor " + name + " adapts an embedding; only linear LoRA sites are supported";
    }
    return "tensor " + name + " is not a lora_A/lora_B weight";
  }
}
