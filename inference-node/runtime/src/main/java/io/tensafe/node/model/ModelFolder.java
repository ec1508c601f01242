package io.tensafe.node.model;

import io.tensafe.tgsp.json.JsonLimits;
import io.tensafe.tgsp.json.JsonParser;
import io.tensafe.tgsp.json.JsonSchemaException;
import io.tensafe.tgsp.json.JsonSyntaxException;
import io.tensafe.tgsp.json.JsonValue;
import io.tensafe.tgsp.json.ObjectReader;
import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.Tensor;
import io.tensafe.tgsp.safetensors.TensorInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Hugging Face-style model folder read into Java: {@code config.json} (Qwen2, Qwen2.5, Qwen3 or
 * Qwen3-MoE) and every {@code *.safetensors} file in it, each tensor held in its stored type
 * ({@link WeightTensor}: F32, F16 or BF16, two bytes per value for the half types; F64 is rounded
 * to F32). Sizes are checked before allocation by the safetensors reader; {@code config.json} may
 * be at most 1 MiB.
 *
 * @param shape the dimensions from {@code config.json}
 * @param modelType "qwen2", "qwen3" or "qwen3_moe"
 * @param moe the mixture-of-experts dimensions of a {@code qwen3_moe} model, empty otherwise
 * @param ropeTheta RoPE base
 * @param rmsNormEps RMSNorm epsilon
 * @param weights every tensor by name
 */
public record ModelFolder(
    ModelShape shape,
    String modelType,
    java.util.Optional<MoeShape> moe,
    double ropeTheta,
    double rmsNormEps,
    Map<String, WeightTensor> weights) {

  static final int MAX_CONFIG_BYTES = 1 << 20;

  /**
   * Reads {@code dir}.
   *
   * @throws IOException if a file cannot be read, or is malformed (the message names the file)
   */
  public static ModelFolder load(Path dir) throws IOException {
    Path configFile = dir.resolve("config.json");
    if (!Files.isRegularFile(configFile) || Files.size(configFile) > MAX_CONFIG_BYTES) {
      throw new IOException(configFile + " is missing or larger than 1 MiB");
    }
    ModelShape shape;
    String type;
    MoeShape moe = null;
    double theta;
    double eps;
    try {
      JsonValue json =
          JsonParser.parse("config.json", Files.readAllBytes(configFile), JsonLimits.document());
      ObjectReader c = new ObjectReader("config.json", json);
      type = c.string("model_type");
      if (!type.equals("qwen2") && !type.equals("qwen3") && !type.equals("qwen3_moe")) {
        throw new IOException("model_type " + type + " is not a supported Qwen model");
      }
      if (type.equals("qwen3_moe")) {
        int experts = (int) c.integer("num_experts", 1, 4096);
        List<Integer> mlpOnly = new ArrayList<>();
        if (c.has("mlp_only_layers")) {
          for (JsonValue v : c.array("mlp_only_layers", 1024)) {
            if (!(v instanceof JsonValue.JsonNumber n)) {
              throw new IOException("config.json: mlp_only_layers holds a non-number");
            }
            mlpOnly.add((int) ObjectReader.integerIn("mlp_only_layers", n.value(), 0, 1023));
          }
        }
        moe =
            new MoeShape(
                experts,
                (int) c.integer("num_experts_per_tok", 1, experts),
                (int) c.integer("moe_intermediate_size", 1, 1 << 20),
                c.has("norm_topk_prob") && c.bool("norm_topk_prob"),
                c.has("decoder_sparse_step") ? (int) c.integer("decoder_sparse_step", 1, 1024) : 1,
                mlpOnly);
      }
      int hidden = (int) c.integer("hidden_size", 1, 1 << 16);
      int heads = (int) c.integer("num_attention_heads", 1, 1024);
      shape =
          new ModelShape(
              dir.getFileName().toString(),
              (int) c.integer("vocab_size", 1, 1 << 22),
              hidden,
              (int) c.integer("intermediate_size", 1, 1 << 20),
              (int) c.integer("num_hidden_layers", 1, 1024),
              heads,
              (int) c.integer("num_key_value_heads", 1, 1024),
              c.has("head_dim") ? (int) c.integer("head_dim", 1, 4096) : hidden / heads,
              c.has("tie_word_embeddings") && c.bool("tie_word_embeddings"));
      theta = c.has("rope_theta") ? c.number("rope_theta").doubleValue() : 10000;
      eps = c.has("rms_norm_eps") ? c.number("rms_norm_eps").doubleValue() : 1e-6;
    } catch (JsonSyntaxException | JsonSchemaException e) {
      throw new IOException("config.json: " + e.getMessage(), e);
    }
    Map<String, WeightTensor> weights = new LinkedHashMap<>();
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*.safetensors")) {
      stream.forEach(files::add);
    }
    files.sort(null);
    if (files.isEmpty()) {
      throw new IOException(dir + " has no *.safetensors file");
    }
    for (Path file : files) {
      try (SafetensorsFile st = SafetensorsFile.open(file)) {
        for (TensorInfo info : st.header().tensors()) {
          if (weights.put(info.name(), held(st.read(info))) != null) {
            throw new IOException(info.name() + " appears in more than one file");
          }
        }
      } catch (IOException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException(file.getFileName() + ": " + e.getMessage(), e);
      }
    }
    return new ModelFolder(
        shape, type, java.util.Optional.ofNullable(moe), theta, eps, Map.copyOf(weights));
  }

  /** The tensor as held: its own bytes for F32, F16 and BF16; F64 rounded to nearest F32. */
  static WeightTensor held(Tensor t) {
    if (t.dtype() != DType.F64) {
      return new WeightTensor(t.shape(), t.dtype(), t.data());
    }
    ByteBuffer in = ByteBuffer.wrap(t.data()).order(ByteOrder.LITTLE_ENDIAN);
    int n = t.elementCount();
    ByteBuffer out = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < n; i++) {
      out.putFloat((float) in.getDouble(8 * i));
    }
    return new WeightTensor(t.shape(), DType.F32, out.array());
  }
}
