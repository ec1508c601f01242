package io.tensafe.kernels.helora;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.Evaluator;
import io.tensafe.kernels.rlwe.MaskedProduct;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.PublicKey;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The node's side of two-round private LoRA (ADR 0017): it holds A and B and the client's public
 * key, and sees only ciphertexts under the client's key.
 *
 * <ol>
 *   <li>{@link #roundOne}: for each plaintext P of A, {@code ct·P + Enc_pk(M)} with M uniform
 *       modulo Q on every coefficient. The client's decryption at an output coefficient is its
 *       share {@code s = A·x + e·P + M}, uniform and independent of A·x; the node keeps M ({@link
 *       Share}).
 *   <li>{@link #roundTwo}: the client encrypts its shares at the input positions of B; the node
 *       subtracts M there (so the plaintext is {@code A·x + e·P}, exactly modulo Q) and returns B's
 *       products masked as {@link PrivateNodeOperator} masks them: uniform non-outputs, flooding
 *       2^40 over the client's new error.
 * </ol>
 *
 * <p>Scales never depend on the adapter's data: A and B are packed at {@code Δ = 2^30 / bound} for
 * the public {@code weightBound} on every row's L1 norm. With the client's {@code Δx·‖x‖∞ = 2^40}
 * ({@link PrivateClient#encryptSharedInput}), round 2's product stays below 2^100 < Q/4.
 *
 * <p>Assumes a semi-honest client (ADR 0017's threat model). Round 2 always adds the DP noise the
 * caller's policy asks for. Thread-safe; a {@link Share} is used once.
 */
public final class SharedLoraNode {
  /** Weights are packed with {@code Δ·weightBound = 2^30}. */
  static final int WEIGHT_SCALE_BITS = 30;

  private final Parameters parameters;
  private final PublicKey clientKey;
  private final SecureRandom random;
  private final PrivateNodeOperator maskedProducts;

  public SharedLoraNode(PublicKey clientKey, SecureRandom random) {
    this.parameters = clientKey.parameters();
    this.clientKey = clientKey;
    this.random = random;
    this.maskedProducts = new PrivateNodeOperator(clientKey, random);
  }

  /**
   * A site: A ({@code r × d}) and B ({@code dOut × r}, with any LoRA scaling folded in), packed.
   *
   * @param weightBound the public bound on every row's L1 norm of A and B, which fixes the scales
   */
  public record Site(
      PrivateNodeOperator.Site a,
      PrivateNodeOperator.Site b,
      double weightBound,
      SharedLoraNode owner) {
    /** A's layout: d inputs, r outputs (the shares). */
    public CoefficientLayout aLayout() {
      return a.layout();
    }

    /** B's layout: r inputs (the shares), dOut outputs. */
    public CoefficientLayout bLayout() {
      return b.layout();
    }
  }

  /**
   * The node's half of one token's secret: M at A·x's output coefficients, {@code [rank][2]}
   * residues. Never leaves the node; {@link #roundTwo} takes it once.
   */
  public static final class Share {
    private long[][] masks;

    private Share(long[][] masks) {
      this.masks = masks;
    }

    private synchronized long[][] take() {
      if (masks == null) {
        throw new IllegalStateException("this share was used already");
      }
      long[][] taken = masks;
      masks = null;
      return taken;
    }
  }

  /** Round 1's answer: the ciphertexts for the client, and the share the node keeps. */
  public record RoundOne(List<Ciphertext> toClient, Share share) {}

  /**
   * Packs a site.
   *
   * @throws IllegalArgumentException if the shapes do not chain (B's rows have A's row count) or a
   *     row's L1 norm exceeds {@code weightBound}
   */
  public Site prepare(double[][] a, double[][] b, double weightBound) {
    if (!(weightBound > 0) || Double.isInfinite(weightBound)) {
      throw new IllegalArgumentException("weightBound must be positive and finite");
    }
    if (a.length == 0 || b.length == 0 || b[0].length != a.length) {
      throw new IllegalArgumentException("B must have A's row count as its width");
    }
    if (RowChecks.maxRowL1(a) > weightBound || RowChecks.maxRowL1(b) > weightBound) {
      throw new IllegalArgumentException("a row's L1 norm exceeds the public weight bound");
    }
    double scale = weightScale(weightBound);
    return new Site(
        maskedProducts.prepare(a, scale), maskedProducts.prepare(b, scale), weightBound, this);
  }

  /** Round 1 on the client's encrypted input {@code x} (d values, 2 limbs). */
  public RoundOne roundOne(Site site, Ciphertext x) {
    requireOwn(site);
    requireClientCiphertext(x);
    CoefficientLayout layout = site.aLayout();
    int rows = layout.rowsPerPlaintext();
    long[][] masks = new long[layout.rank()][];
    List<Ciphertext> toClient = new ArrayList<>(layout.plaintextCount());
    for (int p = 0; p < layout.plaintextCount(); p++) {
      byte[] seed = new byte[Samplers.SEED_BYTES];
      random.nextBytes(seed);
      RnsPoly uniform =
          Samplers.uniformFromSeed(seed, 0, parameters.moduli(), parameters.ringDegree());
      RnsPoly mask = RnsPoly.wrap(new long[][] {uniform.limb(0), uniform.limb(1)}, false);
      for (int b = 0; b < rows && p * rows + b < layout.rank(); b++) {
        int position = layout.outputCoefficient(b);
        masks[p * rows + b] = new long[] {mask.limb(0)[position], mask.limb(1)[position]};
      }
      toClient.add(MaskedProduct.compute(x, site.a().plaintexts().get(p), mask, clientKey, random));
    }
    return new RoundOne(List.copyOf(toClient), new Share(masks));
  }

  /**
   * Round 2 on the client's encrypted shares (at coefficients 0..r-1, at round 1's product scale):
   * the masked products of B, which decrypt to {@code B·A·x} plus, on every output, Gaussian noise
   * of standard deviation {@code noiseStdDev} in the outputs' own units (the adapter's DP policy:
   * ADR 0017). The noise is drawn from the node's CSPRNG and scaled to the product's integer units,
   * where the flooding noise also covers its low bits.
   *
   * @throws IllegalArgumentException if {@code noiseStdDev} is not positive and finite
   * @throws IllegalStateException if {@code share} was used already
   */
  public List<Ciphertext> roundTwo(Site site, Share share, Ciphertext shares, double noiseStdDev) {
    if (!(noiseStdDev > 0) || Double.isInfinite(noiseStdDev)) {
      throw new IllegalArgumentException("the DP noise must be positive and finite");
    }
    BigDecimal scale =
        new BigDecimal(shares.scale()).multiply(new BigDecimal(weightScale(site.weightBound())));
    BigInteger[] noise = new BigInteger[site.bLayout().rank()];
    for (int i = 0; i < noise.length; i++) {
      noise[i] =
          new BigDecimal(random.nextGaussian() * noiseStdDev)
              .multiply(scale)
              .setScale(0, RoundingMode.HALF_EVEN)
              .toBigInteger();
    }
    return roundTwo(site, share, shares, noise);
  }

  /** {@link #roundTwo} without DP noise, for tests that compare with the exact delta. */
  public List<Ciphertext> roundTwoWithoutNoiseForTesting(
      Site site, Share share, Ciphertext shares) {
    return roundTwo(site, share, shares, (BigInteger[]) null);
  }

  private List<Ciphertext> roundTwo(Site site, Share share, Ciphertext shares, BigInteger[] noise) {
    requireOwn(site);
    requireClientCiphertext(shares);
    long[][] masks = share.take();
    if (masks.length != site.bLayout().dimension()) {
      throw new IllegalArgumentException("the share does not belong to this site");
    }
    int n = parameters.ringDegree();
    long[][] minusMask = new long[2][n];
    for (int i = 0; i < masks.length; i++) {
      for (int l = 0; l < 2; l++) {
        Modulus q = parameters.moduli().get(l);
        minusMask[l][i] = masks[i][l] == 0 ? 0 : q.value() - masks[i][l];
      }
      masks[i] = null;
    }
    RnsPoly poly = RnsPoly.wrap(minusMask, false);
    poly.toNttInPlace(parameters.ntts());
    Ciphertext unmasked = Evaluator.addPlain(shares, new Plaintext(poly, shares.scale()));
    return maskedProducts.apply(site.b(), unmasked, noise);
  }

  /** The weights' scale, {@code 2^30 / weightBound}: public, never from the weights themselves. */
  private static double weightScale(double weightBound) {
    return Math.pow(2, WEIGHT_SCALE_BITS) / weightBound;
  }

  private void requireOwn(Site site) {
    if (site.owner() != this) {
      throw new IllegalArgumentException("site was prepared by another node operator");
    }
  }

  private void requireClientCiphertext(Ciphertext ct) {
    if (!ct.parameters().equals(parameters) || ct.limbCount() != 2) {
      throw new IllegalArgumentException("ciphertext does not match the client's parameters");
    }
  }
}
