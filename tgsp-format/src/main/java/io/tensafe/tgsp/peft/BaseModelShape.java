package io.tensafe.tgsp.peft;

import io.tensafe.tgsp.json.JsonLimits;
import io.tensafe.tgsp.json.JsonParser;
import io.tensafe.tgsp.json.JsonSyntaxException;
import io.tensafe.tgsp.json.JsonValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The widths of a Qwen-style decoder's linear modules, from a Hugging Face {@code config.json}, so
 * that an adapter can be checked against its base model before it is packed, uploaded or served.
 *
 * @param hiddenSize {@code hidden_size}, ≥ 1
 * @param intermediateSize {@code intermediate_size} (the MLP width), ≥ 1
 * @param layers {@code num_hidden_layers}, ≥ 1
 * @param attentionHeads {@code num_attention_heads}, ≥ 1
 * @param keyValueHeads {@code num_key_value_heads} (default: the attention heads), divides them
 * @param headDim {@code head_dim} (default: hidden / attention heads), ≥ 1
 * @param experts the mixture-of-experts part of a Qwen3-MoE model, or null for a dense model
 */
public record BaseModelShape(
    int hiddenSize,
    int intermediateSize,
    int layers,
    int attentionHeads,
    int keyValueHeads,
    int headDim,
    ExpertShape experts) {
  /** Largest width or count accepted from a config, far above any model served. */
  public static final int MAX_DIMENSION = 1 << 20;

  /** Qwen2.5-0.5B, the example adapter's default base model. */
  public static final BaseModelShape QWEN25_0_5B = new BaseModelShape(896, 4864, 24, 14, 2, 64);

  private static final Pattern SITE =
      Pattern.compile(
          ".*\\.layers\\.(\\d{1,6})\\.(self_attn|mlp)\\.(?:experts\\.(\\d{1,7})\\.)?"
              + "([a-z_]+)\\.lora_([AB])\\.weight");

  /** A dense model's shape. */
  public BaseModelShape(
      int hiddenSize,
      int intermediateSize,
      int layers,
      int attentionHeads,
      int keyValueHeads,
      int headDim) {
    this(hiddenSize, intermediateSize, layers, attentionHeads, keyValueHeads, headDim, null);
  }

  public BaseModelShape {
    for (int v :
        new int[] {hiddenSize, intermediateSize, layers, attentionHeads, keyValueHeads, headDim}) {
      if (v < 1 || v > MAX_DIMENSION) {
        throw new IllegalArgumentException("model dimension " + v + " outside 1.." + MAX_DIMENSION);
      }
    }
    if (attentionHeads % keyValueHeads != 0) {
      throw new IllegalArgumentException(
          keyValueHeads + " key/value heads do not divide " + attentionHeads + " attention heads");
    }
  }

  /**
   * Reads the shape from a {@code config.json} (at most 1 MiB).
   *
   * @throws UnsupportedAdapterException naming the field that is missing or out of range
   */
  public static BaseModelShape fromConfig(byte[] configJson) throws UnsupportedAdapterException {
    JsonValue value;
    try {
      value = JsonParser.parse("config.json", configJson, JsonLimits.document());
    } catch (JsonSyntaxException e) {
      throw new UnsupportedAdapterException("the base model's config.json: " + e.getMessage());
    }
    if (!(value instanceof JsonValue.JsonObject(Map<String, JsonValue> c))) {
      throw new UnsupportedAdapterException("the base model's config.json is not an object");
    }
    int hidden = field(c, "hidden_size", null);
    int heads = field(c, "num_attention_heads", null);
    try {
      return new BaseModelShape(
          hidden,
          field(c, "intermediate_size", null),
          field(c, "num_hidden_layers", null),
          heads,
          field(c, "num_key_value_heads", heads),
          field(c, "head_dim", heads == 0 ? 0 : hidden / heads),
          c.get("num_experts") instanceof JsonValue.JsonNumber ? experts(c) : null);
    } catch (IllegalArgumentException e) {
      throw new UnsupportedAdapterException("the base model's config.json: " + e.getMessage());
    }
  }

  private static ExpertShape experts(Map<String, JsonValue> c) throws UnsupportedAdapterException {
    List<Integer> mlpOnly = new ArrayList<>();
    JsonValue listed = c.get("mlp_only_layers");
    if (listed instanceof JsonValue.JsonArray(List<JsonValue> values)) {
      for (JsonValue v : values) {
        if (!(v instanceof JsonValue.JsonNumber(BigDecimal n))
            || n.signum() < 0
            || n.compareTo(BigDecimal.valueOf(MAX_DIMENSION)) > 0
            || n.stripTrailingZeros().scale() > 0) {
          throw new UnsupportedAdapterException(
              "the base model's config.json: mlp_only_layers holds " + v + ", not a layer");
        }
        mlpOnly.add(n.intValue());
      }
    } else if (listed != null && !(listed instanceof JsonValue.JsonNull)) {
      throw new UnsupportedAdapterException(
          "the base model's config.json: mlp_only_layers is not an array");
    }
    return new ExpertShape(
        field(c, "num_experts", null),
        field(c, "num_experts_per_tok", null),
        field(c, "moe_intermediate_size", null),
        field(c, "decoder_sparse_step", 1),
        mlpOnly);
  }

  /** The mixture-of-experts part, empty for a dense model. */
  public Optional<ExpertShape> moe() {
    return Optional.ofNullable(experts);
  }

  private static int field(Map<String, JsonValue> c, String name, Integer fallback)
      throws UnsupportedAdapterException {
    JsonValue v = c.get(name);
    if ((v == null || v instanceof JsonValue.JsonNull) && fallback != null) {
      return fallback;
    }
    if (!(v instanceof JsonValue.JsonNumber(BigDecimal n))) {
      throw new UnsupportedAdapterException("the base model's config.json has no number " + name);
    }
    try {
      int i = n.intValueExact();
      if (i < 1 || i > MAX_DIMENSION) {
        throw new ArithmeticException();
      }
      return i;
    } catch (ArithmeticException e) {
      throw new UnsupportedAdapterException(
          "the base model's config.json: " + name + " = " + n + " is not in 1.." + MAX_DIMENSION);
    }
  }

  /**
   * The input and output widths {@code [in, out]} of a linear module of every layer, or empty for a
   * module this architecture does not have.
   */
  public Optional<int[]> linearWidths(String module) {
    int q = attentionHeads * headDim;
    int kv = keyValueHeads * headDim;
    int[] widths =
        switch (module) {
          case "q_proj" -> new int[] {hiddenSize, q};
          case "k_proj", "v_proj" -> new int[] {hiddenSize, kv};
          case "o_proj" -> new int[] {q, hiddenSize};
          case "gate_proj", "up_proj" -> new int[] {hiddenSize, intermediateSize};
          case "down_proj" -> new int[] {intermediateSize, hiddenSize};
          default -> null;
        };
    return Optional.ofNullable(widths);
  }

  /** Whether {@code module} sits in the attention block (else the MLP block). */
  static boolean isAttention(String module) {
    return module.endsWith("_proj") && "qkvo".indexOf(module.charAt(0)) >= 0;
  }

  /**
   * What keeps LoRA tensors of these names and shapes ({@code lora_A} is {@code [r, in]}, {@code
   * lora_B} is {@code [out, r]}) from running on this model: one sentence per tensor, empty when
   * they all fit.
   *
   * @param shapes tensor name → shape, as in a PEFT safetensors file or a TGSP manifest
   */
  public List<String> incompatibilities(Map<String, List<Long>> shapes) {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, List<Long>> e : shapes.entrySet()) {
      String name = e.getKey();
      List<Long> shape = e.getValue();
      Matcher m = SITE.matcher(name);
      if (!m.matches()) {
        if (name.contains(".lora_")) {
          problems.add(name + " is not a LoRA tensor of a decoder layer's linear module");
        }
        continue;
      }
      int layer = Integer.parseInt(m.group(1));
      String block = m.group(2);
      String module = m.group(4);
      Optional<String> misplaced =
          m.group(3) == null
              ? denseProblem(layer, block, module)
              : expertProblem(layer, block, Long.parseLong(m.group(3)), module);
      if (misplaced.isPresent()) {
        problems.add(name + ": " + misplaced.get());
        continue;
      }
      int[] widths =
          m.group(3) == null
              ? linearWidths(module).orElseThrow()
              : experts.widths(module, hiddenSize);
      boolean isA = m.group(5).equals("A");
      long expected = isA ? widths[0] : widths[1];
      long actual = shape.size() == 2 ? (isA ? shape.get(1) : shape.get(0)) : -1;
      if (actual != expected) {
        problems.add(
            name
                + " is "
                + shape
                + " but the base model's "
                + module
                + " maps "
                + widths[0]
                + " to "
                + widths[1]
                + (isA
                    ? " (lora_A must be [r, " + expected + "])"
                    : " (lora_B must be [" + expected + ", r])"));
      }
    }
    return problems;
  }

  /** Why a dense module {@code block.module} of layer {@code layer} is not there, if it is not. */
  private Optional<String> denseProblem(int layer, String block, String module) {
    if (linearWidths(module).isEmpty() || isAttention(module) != block.equals("self_attn")) {
      return Optional.of("the base model has no " + block + "." + module);
    }
    if (layer >= layers) {
      return Optional.of("the base model has " + layers + " layers");
    }
    if (!isAttention(module) && experts != null && experts.sparse(layer)) {
      return Optional.of(
          "layer "
              + layer
              + " routes its MLP to experts; an adapter targets mlp.experts.E."
              + module
              + " there");
    }
    return Optional.empty();
  }

  /** Why expert {@code expert}'s {@code module} of layer {@code layer} is not there, if not. */
  private Optional<String> expertProblem(int layer, String block, long expert, String module) {
    if (experts == null) {
      return Optional.of("the base model has no experts");
    }
    if (!block.equals("mlp") || experts.widths(module, hiddenSize) == null) {
      return Optional.of("an expert has gate_proj, up_proj and down_proj only");
    }
    if (layer >= layers) {
      return Optional.of("the base model has " + layers + " layers");
    }
    if (!experts.sparse(layer)) {
      return Optional.of("layer " + layer + " keeps a dense MLP, without experts");
    }
    if (expert >= experts.experts()) {
      return Optional.of("the base model's layers have " + experts.experts() + " experts");
    }
    return Optional.empty();
  }
}
