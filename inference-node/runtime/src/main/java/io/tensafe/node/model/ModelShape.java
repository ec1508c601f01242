package io.tensafe.node.model;

import java.util.Locale;

/**
 * The dimensions of a Qwen3-architecture dense decoder (RMSNorm, RoPE, grouped-query attention with
 * q/k RMSNorm, SwiGLU MLP), as its Hugging Face {@code config.json} states them.
 *
 * @param vocabSize tokens in the vocabulary; Qwen's is 151,936
 * @param hiddenSize model width
 * @param intermediateSize SwiGLU width
 * @param layers decoder layers
 * @param attentionHeads query heads
 * @param keyValueHeads key/value heads (divides {@code attentionHeads})
 * @param headDim width of one head
 * @param tieEmbeddings whether the output head reuses the input embedding
 */
public record ModelShape(
    String name,
    int vocabSize,
    int hiddenSize,
    int intermediateSize,
    int layers,
    int attentionHeads,
    int keyValueHeads,
    int headDim,
    boolean tieEmbeddings) {

  /** Qwen's vocabulary size (the tokenizer's 151,665 entries, padded). */
  public static final int QWEN_VOCAB = 151_936;

  /** A small model for tests and demos: Qwen3's architecture and vocabulary, width 64. */
  public static final ModelShape TINY =
      new ModelShape("tiny", QWEN_VOCAB, 64, 128, 2, 4, 2, 16, true);

  /**
   * Qwen2.5-1.5B's dimensions (hidden 1536, 28 layers, 12 query and 2 key/value heads of 128,
   * SwiGLU 8960, tied embeddings) on the Qwen3 architecture, for cost measurements.
   */
  public static final ModelShape QWEN25_1_5B =
      new ModelShape("qwen2.5-1.5b", QWEN_VOCAB, 1536, 8960, 28, 12, 2, 128, true);

  /**
   * Qwen3-30B-A3B's dimensions (hidden 2048, 48 layers, 32 query and 4 key/value heads of 128,
   * separate head; its experts are {@link MoeShape#QWEN3_30B_A3B}), for cost measurements with
   * fewer layers ({@link #withLayers}).
   */
  public static final ModelShape QWEN3_30B_A3B =
      new ModelShape("qwen3-30b-a3b", QWEN_VOCAB, 2048, 6144, 48, 32, 4, 128, false);

  public ModelShape {
    if (vocabSize < 1
        || hiddenSize < 1
        || intermediateSize < 1
        || layers < 1
        || headDim < 1
        || keyValueHeads < 1
        || attentionHeads % keyValueHeads != 0) {
      throw new IllegalArgumentException("inconsistent model dimensions: " + name);
    }
  }

  /** The preset called {@code name} ("tiny", "qwen2.5-1.5b" or "qwen3-30b-a3b"). */
  public static ModelShape preset(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "tiny" -> TINY;
      case "qwen2.5-1.5b" -> QWEN25_1_5B;
      case "qwen3-30b-a3b" -> QWEN3_30B_A3B;
      default ->
          throw new IllegalArgumentException(
              "unknown preset '" + name + "'; known: tiny, qwen2.5-1.5b, qwen3-30b-a3b");
    };
  }

  /** The same dimensions with {@code count} layers (≥ 1), named for it. */
  public ModelShape withLayers(int count) {
    return new ModelShape(
        name + "-" + count + "-layers",
        vocabSize,
        hiddenSize,
        intermediateSize,
        count,
        attentionHeads,
        keyValueHeads,
        headDim,
        tieEmbeddings);
  }

  /**
   * The input and output widths {@code [in, out]} of a linear module of every layer ({@code
   * q_proj}, {@code k_proj}, {@code v_proj}, {@code o_proj}, {@code gate_proj}, {@code up_proj},
   * {@code down_proj}), or empty for a module this architecture does not have.
   */
  public java.util.Optional<int[]> linearWidths(String module) {
    return adapterShape().linearWidths(module);
  }

  /** These dimensions as adapters are checked against them: a dense model. */
  public io.tensafe.tgsp.peft.BaseModelShape adapterShape() {
    return adapterShape(null);
  }

  /**
   * These dimensions with {@code moe}'s experts (null: a dense model), as adapters are checked
   * against them.
   */
  public io.tensafe.tgsp.peft.BaseModelShape adapterShape(MoeShape moe) {
    return new io.tensafe.tgsp.peft.BaseModelShape(
        hiddenSize,
        intermediateSize,
        layers,
        attentionHeads,
        keyValueHeads,
        headDim,
        moe == null
            ? null
            : new io.tensafe.tgsp.peft.ExpertShape(
                moe.experts(),
                moe.expertsPerToken(),
                moe.expertIntermediateSize(),
                moe.sparseStep(),
                moe.mlpOnlyLayers()));
  }

  /** Parameters in the model (tied embeddings counted once). */
  public long parameterCount() {
    long h = hiddenSize;
    long attention =
        h * attentionHeads * headDim * 2 + h * keyValueHeads * headDim * 2 + 2L * headDim;
    long mlp = 3 * h * intermediateSize;
    long perLayer = attention + mlp + 2 * h;
    long embedding = (long) vocabSize * h;
    return layers * perLayer + embedding * (tieEmbeddings ? 1 : 2) + h;
  }
}
