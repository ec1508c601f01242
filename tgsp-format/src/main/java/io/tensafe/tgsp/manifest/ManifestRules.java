package io.tensafe.tgsp.manifest;

import io.tensafe.tgsp.json.CanonicalJson;
import io.tensafe.tgsp.json.JsonSchemaException;
import io.tensafe.tgsp.json.JsonValue;
import io.tensafe.tgsp.json.JsonValue.JsonNumber;
import io.tensafe.tgsp.json.ObjectReader;
import io.tensafe.tgsp.manifest.Manifest.Adapter;
import io.tensafe.tgsp.manifest.Manifest.BaseModel;
import io.tensafe.tgsp.manifest.Manifest.Creator;
import io.tensafe.tgsp.manifest.Manifest.DpPolicy;
import io.tensafe.tgsp.manifest.Manifest.Lora;
import io.tensafe.tgsp.manifest.Manifest.Payload;
import io.tensafe.tgsp.manifest.Manifest.Price;
import io.tensafe.tgsp.manifest.Manifest.RankReduction;
import io.tensafe.tgsp.manifest.Manifest.Routing;
import io.tensafe.tgsp.manifest.Manifest.SiteEnergy;
import io.tensafe.tgsp.manifest.Manifest.TensorShape;
import io.tensafe.tgsp.manifest.Manifest.TrainingDpCertificate;
import io.tensafe.tgsp.peft.ScalingRule;
import io.tensafe.tgsp.safetensors.DType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Currency;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** The manifest schema: every field's type, pattern and range (see {@code docs/tgsp-v2.md}). */
public final class ManifestRules {
  public static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
  public static final Pattern SEMVER =
      Pattern.compile("(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})");
  public static final Pattern KEY_ID = Pattern.compile("[0-9a-f]{32}");
  public static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
  public static final Pattern UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  public static final Pattern BASE_MODEL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0,127}");
  public static final Pattern MODULE = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  public static final Pattern DOMAIN = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");
  public static final Pattern KEYWORD =
      Pattern.compile(
          "[\\p{Ll}\\p{Lo}\\p{Nd}][\\p{Ll}\\p{Lo}\\p{Nd}'&.-]*( [\\p{Ll}\\p{Lo}\\p{Nd}'&.-]+)*");
  public static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?");
  public static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
  public static final int MAX_KEYWORDS = 64;
  public static final int MAX_TENSORS = 1 << 16;
  private static final DateTimeFormatter INSTANT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

  private ManifestRules() {}

  /** The manifest's spelling of an instant: RFC 3339, UTC, whole seconds. */
  public static String formatInstant(Instant t) {
    return INSTANT.format(t);
  }

  /** The one spelling of a decimal: plain digits, no exponent, no trailing zeros, no "-0". */
  public static String canonicalDecimal(BigDecimal d) {
    String s = d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
    if (s.length() > 40) {
      throw new IllegalArgumentException("decimal " + s + " is longer than 40 characters");
    }
    return s;
  }

  static Manifest check(ObjectReader r) throws JsonSchemaException {
    r.allowOnly(
        Set.of(
            "format",
            "package_id",
            "adapter",
            "creator",
            "base_model",
            "lora",
            "routing",
            "price",
            "licence",
            "dp_policy",
            "training_dp_certificate",
            "payload",
            "created_at",
            "measured_effect"));
    String format = r.string("format");
    if (!format.equals(Manifest.FORMAT)) {
      throw new JsonSchemaException(r.field("format"), "\"" + format + "\" is not tgsp/2");
    }
    ObjectReader a = r.object("adapter").allowOnly(Set.of("id", "version"));
    ObjectReader c = r.object("creator").allowOnly(Set.of("id", "key_id"));
    ObjectReader b = r.object("base_model").allowOnly(Set.of("id", "config_sha256"));
    Optional<String> configHash = b.optionalString("config_sha256");
    if (configHash.isPresent()) {
      b.string("config_sha256", SHA256_HEX, "64 lowercase hex digits");
    }
    return new Manifest(
        r.string("package_id", UUID, "a lowercase UUID"),
        new Adapter(
            a.string("id", ID, "an id ([a-z0-9][a-z0-9._-]{0,63})"),
            a.string("version", SEMVER, "a semantic version MAJOR.MINOR.PATCH")),
        new Creator(
            c.string("id", ID, "an id ([a-z0-9][a-z0-9._-]{0,63})"),
            c.string("key_id", KEY_ID, "32 lowercase hex digits")),
        new BaseModel(
            b.string("id", BASE_MODEL, "a model id such as Qwen/Qwen2.5-1.5B"), configHash),
        lora(r.object("lora")),
        routing(r.object("routing")),
        price(r.object("price")),
        text(r, "licence", 256),
        dpPolicy(r.object("dp_policy")),
        certificate(r.optionalObject("training_dp_certificate")),
        payload(r.object("payload")),
        instant(r, "created_at"),
        measuredEffect(r.optionalObject("measured_effect")));
  }

  private static Lora lora(ObjectReader r) throws JsonSchemaException {
    r.allowOnly(
        Set.of(
            "rank",
            "alpha",
            "scaling",
            "target_modules",
            "tensors",
            "rank_reduction",
            "private_bounds"));
    int rank = (int) r.integer("rank", 1, 4096);
    BigDecimal alpha = decimal(r, "alpha", BigDecimal.ZERO, false, BigDecimal.valueOf(1 << 20));
    String scalingName = r.string("scaling");
    ScalingRule scaling = null;
    for (ScalingRule rule : ScalingRule.values()) {
      if (rule.wireName().equals(scalingName)) {
        scaling = rule;
      }
    }
    if (scaling == null) {
      throw new JsonSchemaException(
          r.field("scaling"),
          "\"" + scalingName + "\" is not alpha_over_rank or alpha_over_sqrt_rank");
    }
    List<String> modules = r.stringList("target_modules", 64);
    if (modules.isEmpty()) {
      throw new JsonSchemaException(r.field("target_modules"), "must not be empty");
    }
    sortedDistinct(r.field("target_modules"), modules);
    for (String m : modules) {
      matches(r.field("target_modules"), m, MODULE, "a module name");
    }
    List<TensorShape> tensors = new ArrayList<>();
    List<JsonValue> entries = r.array("tensors", MAX_TENSORS);
    for (int i = 0; i < entries.size(); i++) {
      ObjectReader t =
          new ObjectReader(r.field("tensors") + "[" + i + "]", entries.get(i))
              .allowOnly(Set.of("name", "dtype", "shape"));
      String name = text(t, "name", 512);
      String dtypeName = t.string("dtype");
      DType dtype =
          DType.fromName(dtypeName)
              .orElseThrow(
                  () ->
                      new JsonSchemaException(
                          t.field("dtype"), dtypeName + " is not F64, F32, F16 or BF16"));
      List<JsonValue> dims = t.array("shape", 8);
      List<Long> shape = new ArrayList<>();
      for (int d = 0; d < dims.size(); d++) {
        if (!(dims.get(d) instanceof JsonNumber n)) {
          throw new JsonSchemaException(t.field("shape") + "[" + d + "]", "must be an integer");
        }
        shape.add(
            ObjectReader.integerIn(
                t.field("shape") + "[" + d + "]", n.value(), 0, Integer.MAX_VALUE));
      }
      tensors.add(new TensorShape(name, dtype, shape));
    }
    if (tensors.isEmpty()) {
      throw new JsonSchemaException(r.field("tensors"), "must not be empty");
    }
    sortedDistinct(r.field("tensors"), tensors.stream().map(TensorShape::name).toList());
    Optional<RankReduction> reduction = Optional.empty();
    Optional<ObjectReader> rr = r.optionalObject("rank_reduction");
    if (rr.isPresent()) {
      ObjectReader x = rr.get().allowOnly(Set.of("original_rank", "sites"));
      int original = (int) x.integer("original_rank", rank + 1L, 4096);
      List<SiteEnergy> sites = new ArrayList<>();
      List<JsonValue> list = x.array("sites", MAX_TENSORS);
      for (int i = 0; i < list.size(); i++) {
        ObjectReader s =
            new ObjectReader(x.field("sites") + "[" + i + "]", list.get(i))
                .allowOnly(Set.of("site", "retained_energy"));
        sites.add(
            new SiteEnergy(
                text(s, "site", 512),
                decimal(s, "retained_energy", BigDecimal.ZERO, false, BigDecimal.ONE)));
      }
      reduction = Optional.of(new RankReduction(original, sites));
    }
    Optional<Manifest.PrivateBounds> bounds = Optional.empty();
    Optional<ObjectReader> pb = r.optionalObject("private_bounds");
    if (pb.isPresent()) {
      ObjectReader x =
          pb.get().allowOnly(Set.of("a_row_l2_log2", "b_row_l1_log2", "spectral_log2"));
      bounds =
          Optional.of(
              new Manifest.PrivateBounds(
                  (int) x.integer("a_row_l2_log2", -64, 64),
                  (int) x.integer("b_row_l1_log2", -64, 64),
                  (int) x.integer("spectral_log2", -64, 64)));
    }
    return new Lora(rank, alpha, scaling, modules, tensors, reduction, bounds);
  }

  private static Routing routing(ObjectReader r) throws JsonSchemaException {
    r.allowOnly(Set.of("keywords", "domain"));
    List<String> keywords = r.stringList("keywords", MAX_KEYWORDS);
    if (keywords.isEmpty()) {
      throw new JsonSchemaException(r.field("keywords"), "must hold at least one keyword");
    }
    Set<String> seen = new HashSet<>();
    for (String k : keywords) {
      if (k.length() > 64 || !KEYWORD.matcher(k).matches()) {
        throw new JsonSchemaException(
            r.field("keywords"),
            "\""
                + k
                + "\" is not a lowercase keyword or phrase (words of letters and digits,"
                + " single spaces, at most 64 characters)");
      }
      if (!seen.add(k)) {
        throw new JsonSchemaException(r.field("keywords"), "\"" + k + "\" appears twice");
      }
    }
    return new Routing(keywords, r.string("domain", DOMAIN, "a domain ([a-z0-9][a-z0-9_-]{0,31})"));
  }

  private static Price price(ObjectReader r) throws JsonSchemaException {
    r.allowOnly(
        Set.of("currency", "prompt_micros_per_1k_tokens", "completion_micros_per_1k_tokens"));
    String currency = r.string("currency", CURRENCY, "an ISO 4217 code");
    if (Currency.getAvailableCurrencies().stream()
        .noneMatch(c -> c.getCurrencyCode().equals(currency))) {
      throw new JsonSchemaException(r.field("currency"), currency + " is not an ISO 4217 currency");
    }
    return new Price(
        currency,
        r.integer("prompt_micros_per_1k_tokens", 0, CanonicalJson.MAX_SAFE_INTEGER),
        r.integer("completion_micros_per_1k_tokens", 0, CanonicalJson.MAX_SAFE_INTEGER));
  }

  private static DpPolicy dpPolicy(ObjectReader r) throws JsonSchemaException {
    r.allowOnly(
        Set.of(
            "clip_norm", "noise_multiplier", "delta", "epsilon_budget_per_period", "period_days"));
    return new DpPolicy(
        decimal(r, "clip_norm", BigDecimal.ZERO, false, BigDecimal.valueOf(1_000_000)),
        decimal(r, "noise_multiplier", BigDecimal.ZERO, true, BigDecimal.valueOf(1000)),
        decimal(r, "delta", BigDecimal.ZERO, false, new BigDecimal("0.001")),
        decimal(r, "epsilon_budget_per_period", BigDecimal.ZERO, false, BigDecimal.valueOf(10_000)),
        (int) r.integer("period_days", 1, 366));
  }

  private static Optional<TrainingDpCertificate> certificate(Optional<ObjectReader> maybe)
      throws JsonSchemaException {
    if (maybe.isEmpty()) {
      return Optional.empty();
    }
    ObjectReader r =
        maybe.get().allowOnly(Set.of("epsilon", "delta", "mechanism", "accountant", "steps"));
    return Optional.of(
        new TrainingDpCertificate(
            decimal(r, "epsilon", BigDecimal.ZERO, false, BigDecimal.valueOf(1_000_000)),
            decimal(r, "delta", BigDecimal.ZERO, false, BigDecimal.ONE),
            text(r, "mechanism", 64),
            text(r, "accountant", 64),
            r.integer("steps", 1, CanonicalJson.MAX_SAFE_INTEGER)));
  }

  private static Optional<Manifest.MeasuredEffect> measuredEffect(Optional<ObjectReader> maybe)
      throws JsonSchemaException {
    if (maybe.isEmpty()) {
      return Optional.empty();
    }
    ObjectReader r =
        maybe
            .get()
            .allowOnly(
                Set.of(
                    "method",
                    "prompt_source",
                    "prompts",
                    "tokens_per_prompt",
                    "positions",
                    "greedy_agreement",
                    "kl_ratio",
                    "tokens_per_period"));
    String method = r.string("method");
    if (!method.equals(Manifest.MeasuredEffect.METHOD)) {
      throw new JsonSchemaException(
          r.field("method"), "\"" + method + "\" is not " + Manifest.MeasuredEffect.METHOD);
    }
    String source = r.string("prompt_source");
    if (!source.equals("creator") && !source.equals("default")) {
      throw new JsonSchemaException(
          r.field("prompt_source"), "\"" + source + "\" is not creator or default");
    }
    java.util.OptionalLong tokens =
        r.has("tokens_per_period")
            ? java.util.OptionalLong.of(
                r.integer("tokens_per_period", 0, CanonicalJson.MAX_SAFE_INTEGER))
            : java.util.OptionalLong.empty();
    return Optional.of(
        new Manifest.MeasuredEffect(
            method,
            source,
            (int) r.integer("prompts", 1, 1024),
            (int) r.integer("tokens_per_prompt", 1, 4096),
            (int) r.integer("positions", 0, 1 << 22),
            decimal(r, "greedy_agreement", BigDecimal.ZERO, true, BigDecimal.ONE),
            decimal(r, "kl_ratio", BigDecimal.ZERO, true, BigDecimal.valueOf(1_000_000)),
            tokens));
  }

  private static Payload payload(ObjectReader r) throws JsonSchemaException {
    r.allowOnly(Set.of("format", "plaintext_bytes", "plaintext_sha256"));
    String format = r.string("format");
    if (!format.equals("safetensors")) {
      throw new JsonSchemaException(r.field("format"), "\"" + format + "\" is not safetensors");
    }
    return new Payload(
        r.integer("plaintext_bytes", 8, CanonicalJson.MAX_SAFE_INTEGER),
        r.string("plaintext_sha256", SHA256_HEX, "64 lowercase hex digits"));
  }

  private static Instant instant(ObjectReader r, String field) throws JsonSchemaException {
    String s = r.string(field);
    try {
      Instant t = Instant.from(INSTANT.parse(s));
      if (!formatInstant(t).equals(s)) {
        throw new DateTimeParseException("not canonical", s, 0);
      }
      return t;
    } catch (DateTimeParseException e) {
      throw new JsonSchemaException(r.field(field), "\"" + s + "\" is not YYYY-MM-DDTHH:MM:SSZ");
    }
  }

  /** A decimal string in canonical form, in (min, max] (or [min, max] when inclusive). */
  private static BigDecimal decimal(
      ObjectReader r, String field, BigDecimal min, boolean minInclusive, BigDecimal max)
      throws JsonSchemaException {
    String s = r.string(field);
    if (s.length() > 40 || !DECIMAL.matcher(s).matches() || s.equals("-0")) {
      throw new JsonSchemaException(
          r.field(field), "\"" + s + "\" is not a canonical decimal string such as \"0.00001\"");
    }
    BigDecimal d = new BigDecimal(s);
    int low = d.compareTo(min);
    if (low < 0 || (low == 0 && !minInclusive) || d.compareTo(max) > 0) {
      throw new JsonSchemaException(
          r.field(field),
          s
              + " is outside "
              + (minInclusive ? "[" : "(")
              + min.toPlainString()
              + ", "
              + max.toPlainString()
              + "]");
    }
    return d;
  }

  private static String text(ObjectReader r, String field, int maxChars)
      throws JsonSchemaException {
    String s = r.string(field);
    if (s.isEmpty() || s.length() > maxChars || s.chars().anyMatch(Character::isISOControl)) {
      throw new JsonSchemaException(
          r.field(field), "must be 1 to " + maxChars + " characters without control characters");
    }
    return s;
  }

  private static void matches(String path, String value, Pattern pattern, String rule)
      throws JsonSchemaException {
    if (!pattern.matcher(value).matches()) {
      throw new JsonSchemaException(path, "\"" + value + "\" is not " + rule);
    }
  }

  private static void sortedDistinct(String path, List<String> values) throws JsonSchemaException {
    for (int i = 1; i < values.size(); i++) {
      if (values.get(i - 1).compareTo(values.get(i)) >= 0) {
        throw new JsonSchemaException(
            path,
            "must be sorted and distinct; \"" + values.get(i) + "\" is out of order or repeated");
      }
    }
  }
}
