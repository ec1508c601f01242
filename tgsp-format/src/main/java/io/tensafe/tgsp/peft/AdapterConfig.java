package io.tensafe.tgsp.peft;

import io.tensafe.tgsp.json.JsonLimits;
import io.tensafe.tgsp.json.JsonParser;
import io.tensafe.tgsp.json.JsonSchemaException;
import io.tensafe.tgsp.json.JsonSyntaxException;
import io.tensafe.tgsp.json.JsonValue;
import io.tensafe.tgsp.json.JsonValue.JsonArray;
import io.tensafe.tgsp.json.JsonValue.JsonBoolean;
import io.tensafe.tgsp.json.JsonValue.JsonNull;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import io.tensafe.tgsp.json.ObjectReader;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * The parts of a PEFT {@code adapter_config.json} that TGSP carries.
 *
 * @param rank LoRA rank r. Range: [1, 4096].
 * @param alpha {@code lora_alpha}, exactly as written. Range: (0, 2^20].
 * @param scaling alpha/r, or alpha/sqrt(r) when {@code use_rslora} is set
 * @param baseModel {@code base_model_name_or_path}
 */
public record AdapterConfig(int rank, BigDecimal alpha, ScalingRule scaling, String baseModel) {
  public static final int MAX_RANK = 4096;

  /** Parses and checks a config; refuses unsupported PEFT features by name. */
  public static AdapterConfig parse(byte[] json)
      throws JsonSyntaxException, JsonSchemaException, UnsupportedAdapterException {
    JsonValue root = JsonParser.parse("adapter_config.json", json, JsonLimits.document());
    ObjectReader config = new ObjectReader("adapter_config", root);
    String type = config.has("peft_type") ? config.string("peft_type") : "LORA";
    if (!type.equals("LORA")) {
      throw new UnsupportedAdapterException("peft_type " + type + " is not supported; only LORA");
    }
    refuseIfSet(root, "use_dora", "DoRA (use_dora)");
    refuseIfSet(root, "modules_to_save", "modules_to_save");
    refuseIfSet(root, "rank_pattern", "per-module ranks (rank_pattern)");
    refuseIfSet(root, "alpha_pattern", "per-module alphas (alpha_pattern)");
    refuseIfSet(root, "fan_in_fan_out", "fan_in_fan_out (transposed Conv1D weights)");
    refuseIfSet(root, "use_qalora", "QALoRA (use_qalora)");
    if (config.has("bias") && !(config.value("bias") instanceof JsonNull)) {
      String bias = config.string("bias");
      if (!bias.equals("none")) {
        throw new UnsupportedAdapterException(
            "bias \"" + bias + "\" is not supported; trained biases cannot be packaged");
      }
    }
    int rank = (int) config.integer("r", 1, MAX_RANK);
    BigDecimal alpha =
        config.has("lora_alpha") ? config.number("lora_alpha") : BigDecimal.valueOf(8);
    if (alpha.signum() <= 0 || alpha.compareTo(BigDecimal.valueOf(1 << 20)) > 0) {
      throw new JsonSchemaException(config.field("lora_alpha"), alpha + " is outside (0, 2^20]");
    }
    boolean rslora = config.has("use_rslora") && config.bool("use_rslora");
    String base =
        config.has("base_model_name_or_path")
            ? config.optionalString("base_model_name_or_path").orElse("")
            : "";
    return new AdapterConfig(
        rank,
        alpha.stripTrailingZeros(),
        rslora ? ScalingRule.ALPHA_OVER_SQRT_RANK : ScalingRule.ALPHA_OVER_RANK,
        base);
  }

  /** The scale applied to {@code B·A}. */
  public double scalingFactor() {
    return scaling.factor(alpha.doubleValue(), rank);
  }

  private static void refuseIfSet(JsonValue root, String key, String feature)
      throws UnsupportedAdapterException {
    JsonValue v = ((JsonObject) root).members().get(key);
    boolean set =
        switch (v) {
          case null -> false;
          case JsonNull n -> false;
          case JsonBoolean b -> b.value();
          case JsonArray a -> !a.elements().isEmpty();
          case JsonObject o -> !o.members().isEmpty();
          case JsonString s -> !s.value().isEmpty();
          default -> true;
        };
    if (set) {
      throw new UnsupportedAdapterException(feature + " is not supported by TGSP v2");
    }
  }

  /** A PEFT config equivalent to this one, for {@code open}'s output folder. */
  public JsonObject toPeftJson(List<String> targetModules) {
    java.util.LinkedHashMap<String, JsonValue> m = new java.util.LinkedHashMap<>();
    m.put("peft_type", new JsonString("LORA"));
    m.put("task_type", new JsonString("CAUSAL_LM"));
    m.put("r", new JsonValue.JsonNumber(BigDecimal.valueOf(rank)));
    m.put("lora_alpha", new JsonValue.JsonNumber(alpha));
    m.put("use_rslora", new JsonBoolean(scaling == ScalingRule.ALPHA_OVER_SQRT_RANK));
    m.put("use_dora", new JsonBoolean(false));
    m.put("bias", new JsonString("none"));
    m.put("lora_dropout", new JsonValue.JsonNumber(BigDecimal.ZERO));
    m.put("base_model_name_or_path", new JsonString(baseModel));
    m.put(
        "target_modules",
        new JsonArray(targetModules.stream().map(t -> (JsonValue) new JsonString(t)).toList()));
    return new JsonObject(Map.copyOf(m));
  }
}
