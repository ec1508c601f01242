package io.tensafe.node.model;

import io.tensafe.tgsp.safetensors.DType;
import io.tensafe.tgsp.safetensors.SafetensorsWriter;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Writes a Hugging Face-style model folder of the Qwen3 architecture with random weights: {@code
 * config.json}, {@code generation_config.json}, the Qwen3 {@code tokenizer.json} and {@code
 * tokenizer_config.json} (with its chat template), and the weights as safetensors, in one file or,
 * above 2 GiB, in shards with an index. Real weights in such a folder load the same way.
 *
 * <p>Weights: every matrix and embedding N(0, 0.02²), every RMSNorm weight 1. Each tensor's values
 * come from its own generator seeded by the seed and the tensor's name, so the same seed always
 * writes the same bytes, in any order. Tensor names follow Qwen3 in {@code transformers}.
 */
public final class ModelGenerator {
  /** Shards are cut before this many bytes. */
  static final long SHARD_BYTES = 2L << 30;

  private static final double INIT_STD = 0.02;

  private ModelGenerator() {}

  /**
   * Writes the folder.
   *
   * @param dtype F32 or BF16
   * @param progress receives one line per file written
   */
  public static void write(
      ModelShape shape, DType dtype, long seed, Path dir, Consumer<String> progress)
      throws IOException {
    if (dtype != DType.F32 && dtype != DType.BF16) {
      throw new IllegalArgumentException("weights are written as F32 or BF16, not " + dtype);
    }
    Files.createDirectories(dir);
    writeText(dir.resolve("config.json"), config(shape, dtype));
    writeText(
        dir.resolve("generation_config.json"),
        "{\n  \"bos_token_id\": 151643,\n  \"eos_token_id\": [151645, 151643],\n"
            + "  \"do_sample\": false\n}\n");
    copyResource("tokenizer.json", dir);
    copyResource("tokenizer_config.json", dir);
    List<SafetensorsWriter.Entry> all = tensors(shape, dtype);
    Map<String, Long> elements = new java.util.HashMap<>();
    all.forEach(e -> elements.put(e.name(), e.byteLength() / dtype.byteSize()));
    List<List<SafetensorsWriter.Entry>> shards = new ArrayList<>();
    List<SafetensorsWriter.Entry> current = new ArrayList<>();
    long bytes = 0;
    for (SafetensorsWriter.Entry e : all) {
      if (!current.isEmpty() && bytes + e.byteLength() > SHARD_BYTES) {
        shards.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(e);
      bytes += e.byteLength();
    }
    shards.add(current);
    Map<String, String> weightMap = new LinkedHashMap<>();
    for (int s = 0; s < shards.size(); s++) {
      String file =
          shards.size() == 1
              ? "model.safetensors"
              : String.format(Locale.ROOT, "model-%05d-of-%05d.safetensors", s + 1, shards.size());
      Path target = dir.resolve(file);
      Path temp = dir.resolve(file + ".tmp");
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 20)) {
        SafetensorsWriter.writeStreaming(
            shards.get(s),
            Map.of("format", "pt"),
            out,
            (name, sink) -> values(name, dtype, seed, elements.get(name), sink));
      }
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      for (SafetensorsWriter.Entry e : shards.get(s)) {
        weightMap.put(e.name(), file);
      }
      progress.accept(
          String.format(
              Locale.ROOT,
              "wrote %s (%d tensors, %.1f MiB)",
              file,
              shards.get(s).size(),
              Files.size(target) / 1048576.0));
    }
    if (shards.size() > 1) {
      StringBuilder index = new StringBuilder("{\n  \"metadata\": {},\n  \"weight_map\": {\n");
      List<String> names = new ArrayList<>(weightMap.keySet());
      names.sort(null);
      for (int i = 0; i < names.size(); i++) {
        index
            .append("    \"")
            .append(names.get(i))
            .append("\": \"")
            .append(weightMap.get(names.get(i)))
            .append(i + 1 < names.size() ? "\",\n" : "\"\n");
      }
      writeText(dir.resolve("model.safetensors.index.json"), index.append("  }\n}\n").toString());
    }
  }

  /** Every tensor of the model, Qwen3 names. */
  static List<SafetensorsWriter.Entry> tensors(ModelShape s, DType dtype) {
    long h = s.hiddenSize();
    long q = (long) s.attentionHeads() * s.headDim();
    long kv = (long) s.keyValueHeads() * s.headDim();
    List<SafetensorsWriter.Entry> t = new ArrayList<>();
    t.add(entry("model.embed_tokens.weight", dtype, s.vocabSize(), h));
    for (int i = 0; i < s.layers(); i++) {
      String p = "model.layers." + i + ".";
      t.add(entry(p + "input_layernorm.weight", dtype, h));
      t.add(entry(p + "self_attn.q_proj.weight", dtype, q, h));
      t.add(entry(p + "self_attn.k_proj.weight", dtype, kv, h));
      t.add(entry(p + "self_attn.v_proj.weight", dtype, kv, h));
      t.add(entry(p + "self_attn.o_proj.weight", dtype, h, q));
      t.add(entry(p + "self_attn.q_norm.weight", dtype, s.headDim()));
      t.add(entry(p + "self_attn.k_norm.weight", dtype, s.headDim()));
      t.add(entry(p + "post_attention_layernorm.weight", dtype, h));
      t.add(entry(p + "mlp.gate_proj.weight", dtype, s.intermediateSize(), h));
      t.add(entry(p + "mlp.up_proj.weight", dtype, s.intermediateSize(), h));
      t.add(entry(p + "mlp.down_proj.weight", dtype, h, s.intermediateSize()));
    }
    t.add(entry("model.norm.weight", dtype, h));
    if (!s.tieEmbeddings()) {
      t.add(entry("lm_head.weight", dtype, s.vocabSize(), h));
    }
    return t;
  }

  private static SafetensorsWriter.Entry entry(String name, DType dtype, long... shape) {
    List<Long> dims = new ArrayList<>();
    for (long d : shape) {
      dims.add(d);
    }
    return new SafetensorsWriter.Entry(name, dtype, dims);
  }

  private static void values(String name, DType dtype, long seed, long count, OutputStream sink)
      throws IOException {
    boolean norm = name.endsWith("norm.weight");
    SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + name.hashCode());
    ByteBuffer buffer = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    for (long i = 0; i < count; i++) {
      float v = norm ? 1f : (float) (random.nextGaussian() * INIT_STD);
      if (dtype == DType.F32) {
        buffer.putFloat(v);
      } else {
        buffer.putShort((short) (Float.floatToRawIntBits(v) >>> 16)); // truncation to BF16
      }
      if (!buffer.hasRemaining()) {
        sink.write(buffer.array(), 0, buffer.position());
        buffer.clear();
      }
    }
    sink.write(buffer.array(), 0, buffer.position());
  }

  static String config(ModelShape s, DType dtype) {
    return String.format(
        Locale.ROOT,
        """
        {
          "architectures": ["Qwen3ForCausalLM"],
          "model_type": "qwen3",
          "vocab_size": %d,
          "hidden_size": %d,
          "intermediate_size": %d,
          "num_hidden_layers": %d,
          "num_attention_heads": %d,
          "num_key_value_heads": %d,
          "head_dim": %d,
          "hidden_act": "silu",
          "attention_bias": false,
          "max_position_embeddings": 40960,
          "rms_norm_eps": 1e-06,
          "rope_theta": 1000000.0,
          "tie_word_embeddings": %s,
          "torch_dtype": "%s",
          "bos_token_id": 151643,
          "eos_token_id": 151645,
          "tensafe_generated": "%s, random weights"
        }
        """,
        s.vocabSize(),
        s.hiddenSize(),
        s.intermediateSize(),
        s.layers(),
        s.attentionHeads(),
        s.keyValueHeads(),
        s.headDim(),
        s.tieEmbeddings(),
        dtype == DType.F32 ? "float32" : "bfloat16",
        s.name());
  }

  private static void copyResource(String file, Path dir) throws IOException {
    String resource = "io/tensafe/node/tokenizer/qwen3/" + file;
    try (InputStream in = ModelGenerator.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not packaged; rebuild inference-node");
      }
      Files.copy(in, dir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void writeText(Path file, String text) {
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
