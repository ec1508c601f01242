package io.tensafe.tgsp.manifest;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.json.CanonicalJson;
import io.tensafe.tgsp.json.JsonLimits;
import io.tensafe.tgsp.json.JsonParser;
import io.tensafe.tgsp.json.JsonSchemaException;
import io.tensafe.tgsp.json.JsonValue;
import io.tensafe.tgsp.json.JsonValue.JsonArray;
import io.tensafe.tgsp.json.JsonValue.JsonNumber;
import io.tensafe.tgsp.json.JsonValue.JsonObject;
import io.tensafe.tgsp.json.JsonValue.JsonString;
import io.tensafe.tgsp.json.ObjectReader;
import io.tensafe.tgsp.manifest.Manifest.DpPolicy;
import io.tensafe.tgsp.manifest.Manifest.Lora;
import io.tensafe.tgsp.manifest.Manifest.RankReduction;
import io.tensafe.tgsp.manifest.Manifest.SiteEnergy;
import io.tensafe.tgsp.manifest.Manifest.TensorShape;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The manifest's one encoding: canonical JSON ({@link CanonicalJson}) with snake_case fields.
 * {@link #decode} checks every field against the schema ({@link ManifestRules}), refuses unknown
 * fields, and refuses any byte sequence that is not exactly what {@link #encode} would write.
 */
public final class ManifestCodec {
  /** Largest manifest accepted, in bytes. */
  public static final int MAX_MANIFEST_BYTES = 1 << 20;

  private ManifestCodec() {}

  public static byte[] encode(Manifest m) {
    Map<String, JsonValue> root = new LinkedHashMap<>();
    root.put("format", str(Manifest.FORMAT));
    root.put("package_id", str(m.packageId()));
    root.put("adapter", obj("id", str(m.adapter().id()), "version", str(m.adapter().version())));
    root.put("creator", obj("id", str(m.creator().id()), "key_id", str(m.creator().keyId())));
    Map<String, JsonValue> base = new LinkedHashMap<>();
    base.put("id", str(m.baseModel().id()));
    m.baseModel().configSha256().ifPresent(h -> base.put("config_sha256", str(h)));
    root.put("base_model", new JsonObject(base));
    root.put("lora", lora(m.lora()));
    root.put(
        "routing",
        obj("keywords", strings(m.routing().keywords()), "domain", str(m.routing().domain())));
    root.put(
        "price",
        obj(
            "currency", str(m.price().currency()),
            "prompt_micros_per_1k_tokens", num(m.price().promptMicrosPer1kTokens()),
            "completion_micros_per_1k_tokens", num(m.price().completionMicrosPer1kTokens())));
    root.put("licence", str(m.licence()));
    DpPolicy dp = m.dpPolicy();
    root.put(
        "dp_policy",
        obj(
            "clip_norm", dec(dp.clipNorm()),
            "noise_multiplier", dec(dp.noiseMultiplier()),
            "delta", dec(dp.delta()),
            "epsilon_budget_per_period", dec(dp.epsilonBudgetPerPeriod()),
            "period_days", num(dp.periodDays())));
    m.trainingDpCertificate()
        .ifPresent(
            c ->
                root.put(
                    "training_dp_certificate",
                    obj(
                        "epsilon", dec(c.epsilon()),
                        "delta", dec(c.delta()),
                        "mechanism", str(c.mechanism()),
                        "accountant", str(c.accountant()),
                        "steps", num(c.steps()))));
    root.put(
        "payload",
        obj(
            "format", str("safetensors"),
            "plaintext_bytes", num(m.payload().plaintextBytes()),
            "plaintext_sha256", str(m.payload().plaintextSha256())));
    root.put("created_at", str(ManifestRules.formatInstant(m.createdAt())));
    m.measuredEffect().ifPresent(e -> root.put("measured_effect", measuredEffect(e)));
    return CanonicalJson.encode(new JsonObject(root));
  }

  /** Parses and checks a manifest; the bytes must be its canonical encoding. */
  public static Manifest decode(byte[] bytes) throws TgspException {
    JsonValue root =
        JsonParser.parse(
            "manifest", bytes, new JsonLimits(MAX_MANIFEST_BYTES, 8, 1 << 12, 20, 1 << 14));
    Manifest manifest = ManifestRules.check(new ObjectReader("manifest", root));
    if (!Arrays.equals(encode(manifest), bytes)) {
      throw new JsonSchemaException(
          "manifest",
          "is valid but not in canonical form (one encoding only; see docs/tgsp-v2.md)");
    }
    return manifest;
  }

  private static JsonObject lora(Lora l) {
    Map<String, JsonValue> m = new LinkedHashMap<>();
    m.put("rank", num(l.rank()));
    m.put("alpha", dec(l.alpha()));
    m.put("scaling", str(l.scaling().wireName()));
    m.put("target_modules", strings(l.targetModules()));
    List<JsonValue> tensors = new ArrayList<>();
    for (TensorShape t : l.tensors()) {
      tensors.add(
          obj(
              "name", str(t.name()),
              "dtype", str(t.dtype().name()),
              "shape", new JsonArray(t.shape().stream().map(d -> (JsonValue) num(d)).toList())));
    }
    m.put("tensors", new JsonArray(tensors));
    l.rankReduction().ifPresent(r -> m.put("rank_reduction", rankReduction(r)));
    l.privateBounds()
        .ifPresent(
            b ->
                m.put(
                    "private_bounds",
                    obj(
                        "a_row_l2_log2",
                        num(b.aRowL2Log2()),
                        "b_row_l1_log2",
                        num(b.bRowL1Log2()),
                        "spectral_log2",
                        num(b.spectralLog2()))));
    return new JsonObject(m);
  }

  private static JsonObject measuredEffect(Manifest.MeasuredEffect e) {
    Map<String, JsonValue> m = new LinkedHashMap<>();
    m.put("method", str(e.method()));
    m.put("prompt_source", str(e.promptSource()));
    m.put("prompts", num(e.prompts()));
    m.put("tokens_per_prompt", num(e.tokensPerPrompt()));
    m.put("positions", num(e.positions()));
    m.put("greedy_agreement", dec(e.greedyAgreement()));
    m.put("kl_ratio", dec(e.klRatio()));
    e.tokensPerPeriod().ifPresent(t -> m.put("tokens_per_period", num(t)));
    return new JsonObject(m);
  }

  private static JsonObject rankReduction(RankReduction r) {
    List<JsonValue> sites = new ArrayList<>();
    for (SiteEnergy s : r.sites()) {
      sites.add(obj("site", str(s.site()), "retained_energy", dec(s.retainedEnergy())));
    }
    return obj("original_rank", num(r.originalRank()), "sites", new JsonArray(sites));
  }

  static JsonString str(String s) {
    return new JsonString(s);
  }

  static JsonString dec(BigDecimal d) {
    return new JsonString(ManifestRules.canonicalDecimal(d));
  }

  static JsonNumber num(long n) {
    return new JsonNumber(BigDecimal.valueOf(n));
  }

  static JsonArray strings(List<String> values) {
    return new JsonArray(values.stream().map(v -> (JsonValue) new JsonString(v)).toList());
  }

  static JsonObject obj(Object... keyValues) {
    Map<String, JsonValue> m = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      m.put((String) keyValues[i], (JsonValue) keyValues[i + 1]);
    }
    return new JsonObject(m);
  }
}
