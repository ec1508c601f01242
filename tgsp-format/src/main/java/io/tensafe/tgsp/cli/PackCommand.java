package io.tensafe.tgsp.cli;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import io.tensafe.tgsp.crypto.Frames;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.crypto.PayloadCipher;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.packaging.AdapterPacker;
import io.tensafe.tgsp.packaging.EffectMeasurer;
import io.tensafe.tgsp.packaging.PackOptions;
import io.tensafe.tgsp.peft.BaseModelShape;
import io.tensafe.tgsp.peft.PeftAdapter;
import io.tensafe.tgsp.peft.RankReducer;
import io.tensafe.tgsp.peft.UnsupportedAdapterException;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tgsp pack}: PEFT folder → signed, encrypted TGSP v2 file. */
@Command(
    name = "pack",
    // Not mixinStandardHelpOptions: its -V/--version would clash with the package's --version, and
    // picocli then drops -h/--help too, so `pack --help` failed on the missing required options.
    sortOptions = false,
    description = {
      "Package a PEFT LoRA folder as a signed, encrypted TGSP v2 file.",
      "The folder holds adapter_config.json and adapter_model.safetensors. The file is signed",
      "with your creator key (Ed25519 + ML-DSA-65) and encrypted to one or more node fleets."
    })
final class PackCommand implements Callable<Integer> {
  /** Largest --effect-prompts file, in bytes, and most prompts in it. */
  static final int MAX_PROMPTS_BYTES = 1 << 16;

  static final int MAX_PROMPTS = 64;

  private final EffectMeasurer measurer;

  PackCommand() {
    this(EffectMeasurer.UNAVAILABLE);
  }

  PackCommand(EffectMeasurer measurer) {
    this.measurer = measurer;
  }

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "show this help and exit")
  boolean help;

  @Option(names = "--peft", required = true, description = "the PEFT adapter folder")
  Path peft;

  @Option(names = "--creator-key", required = true, description = "your creator.key")
  Path creatorKey;

  @Option(
      names = "--recipient",
      required = true,
      description = "a fleet.pub to encrypt to (repeat for several fleets)")
  List<Path> recipients;

  @Option(names = "--adapter-id", required = true, description = "adapter id, e.g. banking-helper")
  String adapterId;

  @Option(names = "--version", required = true, description = "semantic version, e.g. 1.0.0")
  String version;

  @Option(
      names = "--base-model",
      description = "base model id (default: the config's base_model_name_or_path)")
  String baseModel;

  @Option(
      names = "--base-model-config",
      description =
          "the base model's config.json: the adapter's shapes are checked against it, and the"
              + " manifest records its SHA-256")
  Path baseModelConfig;

  @Option(
      names = "--price-prompt",
      required = true,
      description = "price per 1000 prompt tokens, in micro-units of the currency")
  long pricePrompt;

  @Option(
      names = "--price-completion",
      required = true,
      description = "price per 1000 completion tokens, in micro-units of the currency")
  long priceCompletion;

  @Option(names = "--currency", defaultValue = "USD", description = "ISO 4217 (default: USD)")
  String currency;

  @Option(
      names = "--keywords",
      required = true,
      description = "comma-separated routing keywords or phrases")
  String keywords;

  @Option(names = "--domain", required = true, description = "routing domain, e.g. finance")
  String domain;

  @Option(
      names = "--licence",
      defaultValue = "proprietary",
      description = "licence text or SPDX id (default: ${DEFAULT-VALUE})")
  String licence;

  @Option(
      names = "--clip-norm",
      defaultValue = "64",
      description =
          "L2 clip norm C of every LoRA input, in both modes (default: ${DEFAULT-VALUE}; the"
              + " measured effect shows what it costs)")
  BigDecimal clipNorm;

  @Option(
      names = "--noise-multiplier",
      defaultValue = "0",
      description =
          "DP noise multiplier z: σ = z·2·L·C on every site's output, ρ = 1/(2z²) per site and"
              + " token; 0 adds no noise and charges no budget (default: ${DEFAULT-VALUE})")
  BigDecimal noiseMultiplier;

  @Option(names = "--delta", defaultValue = "0.00001", description = "DP δ (default: 0.00001)")
  BigDecimal delta;

  @Option(
      names = "--epsilon-budget",
      defaultValue = "10",
      description = "ε a client may spend per period (default: 10)")
  BigDecimal epsilonBudget;

  @Option(
      names = "--period-days",
      defaultValue = "30",
      description = "DP budget period in days (default: 30)")
  int periodDays;

  @Option(
      names = "--rank",
      description = "reduce every site to this rank by truncated SVD (must be below the adapter's)")
  Integer rank;

  @Option(
      names = "--chunk-size",
      defaultValue = "65536",
      description = "plaintext bytes per encrypted chunk, 4 KiB to 16 MiB (default: 64 KiB)")
  int chunkSize;

  @Option(names = "--out", required = true, description = "the .tgsp file to write")
  Path out;

  @Option(
      names = "--model-dir",
      description =
          "the base model's folder: measure the adapter's effect retained under the policy and the"
              + " tokens per period it allows, and sign the figures (ADR 0035; ./tensafe tgsp pack)")
  Path modelDir;

  @Option(
      names = "--effect-prompts",
      description = "user messages to measure on, one per line (default: the reference prompts)")
  Path effectPrompts;

  @Option(
      names = "--min-effect",
      description =
          "refuse to pack when the measured greedy agreement is below this, in [0, 1]"
              + " (needs --model-dir)")
  BigDecimal minEffect;

  @Override
  public Integer call() throws IOException, TgspException {
    CreatorKeyPair creator = KeyFiles.readCreatorPrivate(creatorKey);
    List<FleetPublicKey> fleets = new ArrayList<>();
    for (Path r : recipients) {
      fleets.add(KeyFiles.readFleetPublic(r));
    }
    PayloadCipher.requireChunkSize(chunkSize);
    Optional<String> configHash = Optional.empty();
    if (baseModelConfig == null && modelDir != null) {
      baseModelConfig = modelDir.resolve("config.json");
    }
    if (baseModelConfig != null) {
      requireFits(PeftAdapter.load(peft), readShape(baseModelConfig));
      configHash = Optional.of(Frames.hex(Frames.sha256(Files.readAllBytes(baseModelConfig))));
    }
    PackOptions options =
        new PackOptions(
            UUID.randomUUID().toString(),
            new Manifest.Adapter(adapterId, version),
            Optional.ofNullable(baseModel),
            configHash,
            new Manifest.Routing(splitKeywords(keywords), domain),
            new Manifest.Price(currency, pricePrompt, priceCompletion),
            licence,
            new Manifest.DpPolicy(clipNorm, noiseMultiplier, delta, epsilonBudget, periodDays),
            Optional.empty(),
            rank == null ? OptionalInt.empty() : OptionalInt.of(rank),
            chunkSize,
            Instant.now());
    Optional<Manifest.MeasuredEffect> effect = measure(options.dpPolicy());
    if (effect.isPresent()) {
      options = options.withMeasuredEffect(effect.get());
    }
    long size = Files.size(peft.resolve(PeftAdapter.WEIGHTS_FILE));
    ProgressBar bar = new ProgressBar("pack", size);
    AdapterPacker.PackResult result =
        AdapterPacker.pack(peft, options, creator, fleets, new SecureRandom(), out, bar);
    bar.finish(result.manifest().payload().plaintextBytes());
    result
        .reduction()
        .ifPresent(
            r -> {
              System.out.println(
                  "rank "
                      + result.manifest().lora().rankReduction().get().originalRank()
                      + " -> "
                      + r.config().rank()
                      + "; retained energy per site:");
              for (RankReducer.SiteEnergy e : r.energies()) {
                System.out.printf(Locale.ROOT, "  %-70s %.6f%n", e.site(), e.retainedEnergy());
              }
            });
    Manifest m = result.manifest();
    System.out.printf(
        Locale.ROOT,
        "packed %s@%s (rank %d, %d tensors, %d bytes) signed by %s/%s for %d fleet(s) -> %s%n",
        m.adapter().id(),
        m.adapter().version(),
        m.lora().rank(),
        m.lora().tensors().size(),
        m.payload().plaintextBytes(),
        m.creator().id(),
        m.creator().keyId(),
        fleets.size(),
        out);
    return 0;
  }

  /**
   * The effect retained under {@code policy}, measured when {@code --model-dir} names the base
   * model; refuses (naming the measured figure) when it is below {@code --min-effect}.
   */
  private Optional<Manifest.MeasuredEffect> measure(Manifest.DpPolicy policy) throws IOException {
    if (modelDir == null) {
      if (minEffect != null || effectPrompts != null) {
        throw new IllegalArgumentException("--min-effect and --effect-prompts need --model-dir");
      }
      return Optional.empty();
    }
    if (minEffect != null && (minEffect.signum() < 0 || minEffect.compareTo(BigDecimal.ONE) > 0)) {
      throw new IllegalArgumentException("--min-effect must be in [0, 1], was " + minEffect);
    }
    List<String> prompts = effectPrompts == null ? List.of() : readPrompts(effectPrompts);
    Manifest.MeasuredEffect e = measurer.measure(peft, modelDir, policy, prompts);
    System.out.printf(
        Locale.ROOT,
        "measured effect retained under z = %s: greedy agreement %s over %d positions, KL ratio %s,"
            + " %s tokens per %d days%n",
        policy.noiseMultiplier().toPlainString(),
        e.greedyAgreement().toPlainString(),
        e.positions(),
        e.klRatio().toPlainString(),
        e.tokensPerPeriod().isPresent()
            ? Long.toString(e.tokensPerPeriod().getAsLong())
            : "unlimited",
        policy.periodDays());
    if (policy.noiseMultiplier().signum() == 0
        && e.greedyAgreement().compareTo(new BigDecimal("0.9")) < 0) {
      System.err.println(
          "warning: without noise the clip norm "
              + policy.clipNorm().toPlainString()
              + " alone keeps only "
              + e.greedyAgreement().toPlainString()
              + " of the adapter's greedy tokens: it clips the model's LoRA inputs; a larger"
              + " --clip-norm keeps more");
    }
    if (minEffect != null && e.greedyAgreement().compareTo(minEffect) < 0) {
      throw new IllegalArgumentException(
          "the adapter keeps a greedy agreement of "
              + e.greedyAgreement().toPlainString()
              + " with its noiseless self under this policy (noise multiplier "
              + policy.noiseMultiplier().toPlainString()
              + "), below --min-effect "
              + minEffect.toPlainString()
              + "; nothing was packed");
    }
    if (e.tokensPerPeriod().isPresent() && e.tokensPerPeriod().getAsLong() == 0) {
      throw new IllegalArgumentException(
          "under this policy (noise multiplier "
              + policy.noiseMultiplier().toPlainString()
              + ", ε "
              + policy.epsilonBudgetPerPeriod().toPlainString()
              + " per "
              + policy.periodDays()
              + " days) a client could not run one token a period: raise the noise multiplier or"
              + " the budget, or choose no noise (0); nothing was packed");
    }
    return Optional.of(e);
  }

  /** One prompt per non-blank line, at most {@value #MAX_PROMPTS} and 64 KiB. */
  static List<String> readPrompts(Path file) throws IOException {
    if (Files.size(file) > MAX_PROMPTS_BYTES) {
      throw new IllegalArgumentException(
          file + " is larger than " + MAX_PROMPTS_BYTES + " bytes of prompts");
    }
    List<String> prompts =
        Files.readAllLines(file).stream().map(String::strip).filter(l -> !l.isEmpty()).toList();
    if (prompts.isEmpty() || prompts.size() > MAX_PROMPTS) {
      throw new IllegalArgumentException(
          file + " holds " + prompts.size() + " prompts; 1 to " + MAX_PROMPTS + " are measured");
    }
    return prompts;
  }

  /** The shape in a base model's {@code config.json} (at most 1 MiB). */
  static BaseModelShape readShape(Path config) throws IOException, TgspException {
    if (Files.size(config) > PeftAdapter.MAX_CONFIG_BYTES) {
      throw new UnsupportedAdapterException(
          config + " is larger than " + PeftAdapter.MAX_CONFIG_BYTES + " bytes");
    }
    return BaseModelShape.fromConfig(Files.readAllBytes(config));
  }

  /** Refuses an adapter whose tensors do not fit {@code shape}, naming each that does not. */
  static void requireFits(PeftAdapter adapter, BaseModelShape shape)
      throws UnsupportedAdapterException {
    java.util.Map<String, List<Long>> shapes = new java.util.TreeMap<>();
    adapter.header().tensors().forEach(t -> shapes.put(t.name(), t.shape()));
    List<String> problems = shape.incompatibilities(shapes);
    if (!problems.isEmpty()) {
      throw new UnsupportedAdapterException(
          "the adapter does not fit its base model: "
              + String.join("; ", problems.subList(0, Math.min(5, problems.size())))
              + (problems.size() > 5 ? "; and " + (problems.size() - 5) + " more" : ""));
    }
  }

  /** "Bank, Mortgage ,interest rate" → [bank, mortgage, interest rate]. */
  static List<String> splitKeywords(String csv) {
    return Arrays.stream(csv.split(","))
        .map(k -> k.trim().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT))
        .filter(k -> !k.isEmpty())
        .toList();
  }
}
