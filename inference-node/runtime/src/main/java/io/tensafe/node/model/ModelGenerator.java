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
 * Writes a Hugging Face-style model folder of the Qwen3 or Qwen2 architecture ({@link Arch}) with
 * random weights: {@code config.json}, {@code generation_config.json}, the Qwen3 {@code
 * tokenizer.json} and {@code tokenizer_config.json} (with its chat template), and the weights as
 * safetensors, in one file or, above 2 GiB, in shards with an index. Real weights in such a folder
 * load the same way.
 *
 * <p>Weights: every matrix and embedding N(0, 0.02²), every RMSNorm weight 1. Each tensor's values
 * come from its own generator seeded by the seed and the tensor's name, so the same seed always
 * writes the same bytes, in any order; Qwen2's q/k/v biases are N(0, 0.5²). Tensor names follow
 * Qwen3 and Qwen2 in {@code transformers}.
 */
public final class ModelGenerator {
  /** Shards are cut before this many bytes. */
  static final long SHARD_BYTES = 2L << 30;

  private static final double INIT_STD = 0.02;
  private static final double BIAS_STD = 0.5;
  private static final double ROUTER_STD = 0.5;

  private ModelGenerator() {}

  /** The architectures it writes: Qwen3 (q/k norms) or Qwen2/Qwen2.5 (q/k/v projection biases). */
  public enum Arch {
    QWEN3,
    QWEN2,
    /** Qwen3-MoE (experts: {@link #TINY_MOE} unless given). */
    QWEN3_MOE
  }

  /**
   * The generated MoE models' experts: 8, 2 per token, width 32, renormalised, every layer sparse
   * but layer 0 (so both MLP kinds are exercised).
   */
  public static final MoeShape TINY_MOE = new MoeShape(8, 2, 32, true, 1, List.of(0));

  /** A folder of {@code arch}, with {@link #TINY_MOE}'s experts for Qwen3-MoE. */
  public static void write(
      ModelShape shape, DType dtype, long seed, Path dir, Consumer<String> progress, Arch arch)
      throws IOException {
    write(shape, dtype, seed, dir, progress, arch, TINY_MOE);
  }

  /** A Qwen3 folder: {@link #write(ModelShape, DType, long, Path, Consumer, Arch)}. */
  public static void write(
      ModelShape shape, DType dtype, long seed, Path dir, Consumer<String> progress)
      throws IOException {
    write(shape, dtype, seed, dir, progress, Arch.QWEN3);
  }

  /**
   * Writes the folder.
   *
   * @param dtype F32, BF16 (truncated) or F16 (rounded to nearest even)
   * @param progress receives one line per file written
   */
  public static void write(
      ModelShape shape,
      DType dtype,
      long seed,
      Path dir,
      Consumer<String> progress,
      Arch arch,
      MoeShape moe)
      throws IOException {
    if (dtype == DType.F64) {
      throw new IllegalArgumentException("weights are written as F32, BF16 or F16, not " + dtype);
    }
    writeFolderFiles(shape, dtype, arch, moe, shape.name() + ", random weights", dir);
    List<SafetensorsWriter.Entry> all = tensors(shape, dtype, arch, moe);
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

  /**
   * Writes every file of the folder but the weights: {@code config.json} (its {@code
   * tensafe_generated} field says {@code provenance}), {@code generation_config.json} and the Qwen3
   * {@code tokenizer.json} and {@code tokenizer_config.json} (with the chat template). Weights
   * trained elsewhere for {@code shape} make it a complete folder.
   */
  public static void writeFolderFiles(
      ModelShape shape, DType dtype, Arch arch, MoeShape moe, String provenance, Path dir)
      throws IOException {
    Files.createDirectories(dir);
    writeText(dir.resolve("config.json"), config(shape, dtype, arch, moe, provenance));
    writeText(
        dir.resolve("generation_config.json"),
        "{\n  \"bos_token_id\": 151643,\n  \"eos_token_id\": [151645, 151643],\n"
            + "  \"do_sample\": false\n}\n");
    copyResource("tokenizer.json", dir);
    copyResource("tokenizer_config.json", dir);
  }

  /** Every tensor of a Qwen3 model. */
  static List<SafetensorsWriter.Entry> tensors(ModelShape s, DType dtype) {
    return tensors(s, dtype, Arch.QWEN3, TINY_MOE);
  }

  /** Parameters the folder of {@code arch} holds (every tensor's elements). */
  public static long parameterCount(ModelShape s, Arch arch, MoeShape moe) {
    return tensors(s, DType.F32, arch, moe).stream().mapToLong(e -> e.byteLength() / 4).sum();
  }

  /** Every tensor of the model, with the names {@code transformers} gives them. */
  static List<SafetensorsWriter.Entry> tensors(ModelShape s, DType dtype, Arch arch, MoeShape moe) {
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
      if (arch == Arch.QWEN2) {
        t.add(entry(p + "self_attn.q_proj.bias", dtype, q));
        t.add(entry(p + "self_attn.k_proj.bias", dtype, kv));
        t.add(entry(p + "self_attn.v_proj.bias", dtype, kv));
      } else {
        t.add(entry(p + "self_attn.q_norm.weight", dtype, s.headDim()));
        t.add(entry(p + "self_attn.k_norm.weight", dtype, s.headDim()));
      }
      t.add(entry(p + "post_attention_layernorm.weight", dtype, h));
      if (arch == Arch.QWEN3_MOE && moe.sparse(i)) {
        long width = moe.expertIntermediateSize();
        t.add(entry(p + "mlp.gate.weight", dtype, moe.experts(), h));
        for (int e = 0; e < moe.experts(); e++) {
          String x = p + "mlp.experts." + e + ".";
          t.add(entry(x + "gate_proj.weight", dtype, width, h));
          t.add(entry(x + "up_proj.weight", dtype, width, h));
          t.add(entry(x + "down_proj.weight", dtype, h, width));
        }
        continue;
      }
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
    // Biases are larger than the weights' init so a decoder that skips them is visibly wrong; the
    // router's too, so the experts' choice is not a near tie.
    double std =
        name.endsWith(".bias")
            ? BIAS_STD
            : name.endsWith("mlp.gate.weight") ? ROUTER_STD : INIT_STD;
    SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + name.hashCode());
    ByteBuffer buffer = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    for (long i = 0; i < count; i++) {
      float v = norm ? 1f : (float) (random.nextGaussian() * std);
      switch (dtype) {
        case F32 -> buffer.putFloat(v);
        case F16 -> buffer.putShort(Float.floatToFloat16(v));
        default -> buffer.putShort((short) (Float.floatToRawIntBits(v) >>> 16)); // truncated BF16
      }
      if (!buffer.hasRemaining()) {
        sink.write(buffer.array(), 0, buffer.position());
        buffer.clear();
      }
    }
    sink.write(buffer.array(), 0, buffer.position());
  }

  static String config(ModelShape s, DType dtype, Arch arch, MoeShape moe) {
    return config(s, dtype, arch, moe, s.name() + ", random weights");
  }

  static String config(ModelShape s, DType dtype, Arch arch, MoeShape moe, String provenance) {
    return String.format(
        Locale.ROOT,
        """
        {
          "architectures": ["%s"],
          "model_type": "%s",
          "vocab_size": %d,
          "hidden_size": %d,
          "intermediate_size": %d,
          "num_hidden_layers": %d,
          "num_attention_heads": %d,
          "num_key_value_heads": %d,
          "head_dim": %d,
          "hidden_act": "silu",
          "attention_bias": %s,
          "max_position_embeddings": 40960,
          "rms_norm_eps": 1e-06,
          "rope_theta": 1000000.0,
          "tie_word_embeddings": %s,
          "torch_dtype": "%s",
          "bos_token_id": 151643,
          "eos_token_id": 151645,
          "tensafe_generated": "%s"%s
        }
        """,
        switch (arch) {
          case QWEN2 -> "Qwen2ForCausalLM";
          case QWEN3 -> "Qwen3ForCausalLM";
          case QWEN3_MOE -> "Qwen3MoeForCausalLM";
        },
        switch (arch) {
          case QWEN2 -> "qwen2";
          case QWEN3 -> "qwen3";
          case QWEN3_MOE -> "qwen3_moe";
        },
        s.vocabSize(),
        s.hiddenSize(),
        s.intermediateSize(),
        s.layers(),
        s.attentionHeads(),
        s.keyValueHeads(),
        s.headDim(),
        arch == Arch.QWEN2,
        s.tieEmbeddings(),
        switch (dtype) {
          case F32 -> "float32";
          case F16 -> "float16";
          default -> "bfloat16";
        },
        provenance,
        arch != Arch.QWEN3_MOE
            ? ""
            : String.format(
                Locale.ROOT,
                ",\n  \"num_experts\": %d,\n  \"num_experts_per_tok\": %d,\n"
                    + "  \"moe_intermediate_size\": %d,\n  \"norm_topk_prob\": %s,\n"
                    + "  \"decoder_sparse_step\": %d,\n  \"mlp_only_layers\": %s",
                moe.experts(),
                moe.expertsPerToken(),
                moe.expertIntermediateSize(),
                moe.normTopKProb(),
                moe.sparseStep(),
                moe.mlpOnlyLayers()));
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
