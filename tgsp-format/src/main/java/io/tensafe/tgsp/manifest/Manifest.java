package io.tensafe.tgsp.manifest;

import io.tensafe.tgsp.peft.ScalingRule;
import io.tensafe.tgsp.safetensors.DType;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a TGSP v2 package declares about its adapter, signed with it. {@link ManifestCodec} is the
 * only way to and from bytes: one canonical JSON encoding, every field checked (see {@code
 * docs/tgsp-v2.md} for the schema with types and units). Fractional quantities are exact decimals.
 */
public record Manifest(
    String packageId,
    Adapter adapter,
    Creator creator,
    BaseModel baseModel,
    Lora lora,
    Routing routing,
    Price price,
    String licence,
    DpPolicy dpPolicy,
    Optional<TrainingDpCertificate> trainingDpCertificate,
    Payload payload,
    Instant createdAt,
    Optional<MeasuredEffect> measuredEffect) {

  /** A manifest without measured figures (packages made before they were signed, tests). */
  public Manifest(
      String packageId,
      Adapter adapter,
      Creator creator,
      BaseModel baseModel,
      Lora lora,
      Routing routing,
      Price price,
      String licence,
      DpPolicy dpPolicy,
      Optional<TrainingDpCertificate> trainingDpCertificate,
      Payload payload,
      Instant createdAt) {
    this(
        packageId,
        adapter,
        creator,
        baseModel,
        lora,
        routing,
        price,
        licence,
        dpPolicy,
        trainingDpCertificate,
        payload,
        createdAt,
        Optional.empty());
  }

  /** The value of the manifest's {@code format} field. */
  public static final String FORMAT = "tgsp/2";

  /** Adapter id (lowercase, [a-z0-9._-], ≤ 64) and semantic version (MAJOR.MINOR.PATCH). */
  public record Adapter(String id, String version) {}

  /** Creator id and the key id ({@code CreatorPublicKey.keyId()}) that signed the package. */
  public record Creator(String id, String keyId) {}

  /**
   * The base model the adapter was trained for, e.g. "Qwen/Qwen2.5-1.5B", and optionally the
   * SHA-256 (hex) of its {@code config.json}.
   */
  public record BaseModel(String id, Optional<String> configSha256) {}

  /**
   * LoRA hyper-parameters and tensors.
   *
   * @param rank r, in [1, 4096]
   * @param alpha lora_alpha, > 0
   * @param targetModules module names adapted (sorted, distinct), e.g. [q_proj, v_proj]
   * @param tensors every tensor of the payload, sorted by name
   * @param rankReduction present when {@code pack --rank} reduced the creator's rank
   * @param privateBounds the weights' bounds private mode's scales and noise use; absent in
   *     packages made before they were signed (such a version is served in hosted mode only)
   */
  public record Lora(
      int rank,
      BigDecimal alpha,
      ScalingRule scaling,
      List<String> targetModules,
      List<TensorShape> tensors,
      Optional<RankReduction> rankReduction,
      Optional<PrivateBounds> privateBounds) {
    public Lora {
      targetModules = List.copyOf(targetModules);
      tensors = List.copyOf(tensors);
    }
  }

  /** One payload tensor: name, element type and shape. */
  public record TensorShape(String name, DType dtype, List<Long> shape) {
    public TensorShape {
      shape = List.copyOf(shape);
    }
  }

  /**
   * Pack-time rank reduction: the creator's rank and, per site, the share of {@code ‖B·A‖_F²} kept
   * (in (0, 1]).
   */
  public record RankReduction(int originalRank, List<SiteEnergy> sites) {
    public RankReduction {
      sites = List.copyOf(sites);
    }
  }

  /**
   * Bounds on the adapter's weights, as powers of two, for private mode (ADR 0025): computed at
   * pack time, then public.
   *
   * @param aRowL2Log2 every row's L2 norm of every A is at most {@code 2^aRowL2Log2}. Range: [-64,
   *     64].
   * @param bRowL1Log2 every row's L1 norm of every scaled B is at most {@code 2^bRowL1Log2}. Range:
   *     [-64, 64].
   * @param spectralLog2 every site's {@code ‖s·B‖_F·‖A‖_F} is at most {@code 2^spectralLog2}.
   *     Range: [-64, 64].
   */
  public record PrivateBounds(int aRowL2Log2, int bRowL1Log2, int spectralLog2) {}

  /** Retained energy of one site, in (0, 1], as an exact decimal rounded to 6 places. */
  public record SiteEnergy(String site, BigDecimal retainedEnergy) {}

  /** Step-gate routing: keywords or phrases (lowercase, 1–64 of them) and a domain. */
  public record Routing(List<String> keywords, String domain) {
    public Routing {
      keywords = List.copyOf(keywords);
    }
  }

  /**
   * Price per 1000 tokens, in integer micro-units (10^-6) of an ISO 4217 currency.
   *
   * @param promptMicrosPer1kTokens in [0, 2^53 - 1]
   * @param completionMicrosPer1kTokens in [0, 2^53 - 1]
   */
  public record Price(
      String currency, long promptMicrosPer1kTokens, long completionMicrosPer1kTokens) {}

  /**
   * The differential-privacy policy clients are held to (ADR 0035): every LoRA input is clipped to
   * C and, when z > 0, every adapted site's output for every token gets Gaussian noise σ = z·2·L·C
   * (L the site's signed spectral bound), one release of ρ = 1/(2z²) each.
   *
   * @param clipNorm L2 clip norm C, > 0
   * @param noiseMultiplier z = σ/(2·L·C), ≥ 0; 0 is the creator's choice of no DP noise (no release
   *     is noised or charged)
   * @param delta δ, in (0, 10^-3]
   * @param epsilonBudgetPerPeriod the ε a client may spend per period, > 0
   * @param periodDays the budget period, in days, [1, 366]
   */
  public record DpPolicy(
      BigDecimal clipNorm,
      BigDecimal noiseMultiplier,
      BigDecimal delta,
      BigDecimal epsilonBudgetPerPeriod,
      int periodDays) {}

  /**
   * What a buyer gets under the package's DP policy, measured by {@code tgsp pack} on the weights
   * with the base model (the marketplace cannot read the weights: it shows these signed figures and
   * says so; ADR 0035). Teacher-forced on the noiseless adapter's greedy continuation of each
   * prompt: at every position where the noiseless adapter's greedy token differs from the base
   * model's, does the noised adapter pick the noiseless adapter's token, and how far is its
   * next-token distribution.
   *
   * @param method how it was measured; today {@value MeasuredEffect#METHOD}
   * @param promptSource {@code creator} (the creator's own prompts) or {@code default} (the
   *     project's reference prompts)
   * @param prompts prompts measured, [1, 1024]
   * @param tokensPerPrompt greedy tokens generated per prompt, [1, 4096]
   * @param positions positions where the noiseless adapter's greedy token differs from the base
   *     model's, summed over prompts, [0, 2^22]
   * @param greedyAgreement share of those positions where the noised adapter's greedy token is the
   *     noiseless adapter's, [0, 1] (1 when there are none)
   * @param klRatio mean KL(noiseless adapter ‖ noised adapter) over mean KL(noiseless adapter ‖
   *     base model), over every position, [0, 10^6]: 0 keeps all of the effect, 1 or more none
   * @param tokensPerPeriod tokens an organisation can run through the adapter per budget period
   *     under the policy, [0, 2^53 − 1]; absent when the policy adds no noise (no budget limits it)
   */
  public record MeasuredEffect(
      String method,
      String promptSource,
      int prompts,
      int tokensPerPrompt,
      int positions,
      BigDecimal greedyAgreement,
      BigDecimal klRatio,
      java.util.OptionalLong tokensPerPeriod) {
    /** The measurement {@code tgsp pack} and {@code bench utility} make. */
    public static final String METHOD = "teacher-forced-greedy/1";
  }

  /** The creator's claim about DP training (ε, δ, mechanism and accountant), as stated. */
  public record TrainingDpCertificate(
      BigDecimal epsilon, BigDecimal delta, String mechanism, String accountant, long steps) {}

  /** The plaintext payload: a safetensors file of {@code plaintextBytes} with this SHA-256. */
  public record Payload(long plaintextBytes, String plaintextSha256) {}
}
