package io.tensafe.kernels.helora;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.Evaluator;
import io.tensafe.kernels.rlwe.MaskedAnswers;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.PublicKey;
import io.tensafe.kernels.rlwe.ShareAnswer;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import io.tensafe.kernels.rlwe.SwitchedAnswer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The node's side of two-round private LoRA (ADR 0017, with ADR 0018's compact answers): it holds A
 * and B and the client's public key, and sees only ciphertexts under the client's key.
 *
 * <ol>
 *   <li>{@link #roundOne}: the client sends x in {@link ChunkedLayout} chunks; for each plaintext
 *       of A the node answers {@code Σ_j ct_j·P_j + Enc_pk(M)} as a {@link ShareAnswer} (c0 only at
 *       the outputs), with M uniform modulo Q on every output coefficient. The client's decryption
 *       there is its share {@code s = A·x + e·P + M}, uniform and independent of A·x; the node
 *       keeps M ({@link Share}).
 *   <li>{@link #roundTwo}: the client encrypts its shares at the input positions of B; the node
 *       subtracts M there (so the plaintext is {@code A·x + e·P}, exactly modulo Q), multiplies by
 *       B, adds at every output flooding noise uniform in {@code ±F} ({@link
 *       PrivateWeights#floodBound}: statistical distance 2^-40 + 2^-64 over the B-dependent error
 *       {@code e'·P} of an honest client) and the DP noise, and answers as a {@link
 *       SwitchedAnswer}: c0 only at the outputs, both parts switched to {@link
 *       MaskedAnswers#switchBits} bits.
 * </ol>
 *
 * <p>Scales never depend on the adapter's data: A and B are packed at {@code Δ = 2^30 / bound} for
 * the public {@code weightBound} on every row's L1 norm. With the client's {@code Δx·‖x‖∞ = 2^44}
 * ({@link PrivateClient#encryptSharedInput}), round 2's product stays below 2^104 ≤ Q/4.
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
  private final PrivateWeights packer;

  public SharedLoraNode(PublicKey clientKey, SecureRandom random) {
    this.parameters = clientKey.parameters();
    this.clientKey = clientKey;
    this.random = random;
    this.packer = new PrivateWeights(clientKey.parameters());
  }

  /**
   * A site: A ({@code r × d}, one packing per input chunk) and B ({@code dOut × r}, with any LoRA
   * scaling folded in).
   *
   * @param weightBound the public bound on every row's L1 norm of A and B, which fixes the scales
   */
  public record Site(
      ChunkedLayout aChunks,
      List<PrivateWeights.Site> a,
      ChunkedLayout bChunks,
      List<PrivateWeights.Site> b,
      double weightBound,
      SharedLoraNode owner) {
    /** A's layout per chunk: w inputs, r outputs (the shares). */
    public CoefficientLayout aLayout() {
      return aChunks.perChunk();
    }

    /** B's layout per chunk of the shares: w' inputs, dOut outputs. */
    public CoefficientLayout bLayout() {
      return bChunks.perChunk();
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

  /** Round 1's answer: one per plaintext of A, and the share the node keeps. */
  public record RoundOne(List<ShareAnswer> toClient, Share share) {}

  /**
   * Packs a site whose input arrives in {@code chunks} chunks and whose shares in {@code
   * shareChunks}.
   *
   * @throws IllegalArgumentException if the shapes do not chain (B's rows have A's row count), a
   *     row's L1 norm exceeds {@code weightBound}, or the chunk count does not fit A's width
   */
  public Site prepare(double[][] a, double[][] b, double weightBound, int chunks, int shareChunks) {
    if (!(weightBound > 0) || Double.isInfinite(weightBound)) {
      throw new IllegalArgumentException("weightBound must be positive and finite");
    }
    if (a.length == 0 || b.length == 0 || b[0].length != a.length) {
      throw new IllegalArgumentException("B must have A's row count as its width");
    }
    if (RowChecks.maxRowL1(a) > weightBound || RowChecks.maxRowL1(b) > weightBound) {
      throw new IllegalArgumentException("a row's L1 norm exceeds the public weight bound");
    }
    ChunkedLayout aChunks =
        new ChunkedLayout(a[0].length, chunks, a.length, parameters.ringDegree());
    ChunkedLayout bChunks =
        new ChunkedLayout(a.length, shareChunks, b.length, parameters.ringDegree());
    double scale = weightScale(weightBound);
    return new Site(
        aChunks, packed(a, aChunks, scale), bChunks, packed(b, bChunks, scale), weightBound, this);
  }

  private List<PrivateWeights.Site> packed(double[][] m, ChunkedLayout layout, double scale) {
    List<PrivateWeights.Site> perChunk = new ArrayList<>(layout.chunks());
    for (int j = 0; j < layout.chunks(); j++) {
      perChunk.add(packer.prepare(chunkOf(m, j, layout.chunkWidth()), scale));
    }
    return List.copyOf(perChunk);
  }

  /** Round 1 on the client's encrypted input chunks ({@link ChunkedLayout}, 2 limbs each). */
  public RoundOne roundOne(Site site, List<Ciphertext> chunks) {
    requireOwn(site);
    if (chunks.size() != site.aChunks().chunks()) {
      throw new IllegalArgumentException(
          "the site reads " + site.aChunks().chunks() + " chunks, got " + chunks.size());
    }
    chunks.forEach(this::requireClientCiphertext);
    CoefficientLayout layout = site.aLayout();
    int rows = layout.rowsPerPlaintext();
    long[][] masks = new long[layout.rank()][];
    List<ShareAnswer> toClient = new ArrayList<>(layout.plaintextCount());
    for (int p = 0; p < layout.plaintextCount(); p++) {
      int[] positions = layout.outputPositions(p);
      long[][] mask = new long[positions.length][];
      for (int b = 0; b < positions.length; b++) {
        mask[b] = uniformResidues();
        masks[p * rows + b] = mask[b];
      }
      List<ShoupPlaintext> weights = new ArrayList<>(chunks.size());
      for (PrivateWeights.Site chunk : site.a()) {
        weights.add(chunk.plaintexts().get(p));
      }
      toClient.add(MaskedAnswers.share(chunks, weights, positions, mask, clientKey, random));
    }
    return new RoundOne(List.copyOf(toClient), new Share(masks));
  }

  /**
   * Round 2 on the client's encrypted shares (in the site's share chunks, each at coefficients
   * 0..w'-1, at round 1's product scale): B's answers, which decrypt to {@code B·A·x} plus, on
   * every output, Gaussian noise of standard deviation {@code noiseStdDev} in the outputs' own
   * units (the adapter's DP policy: ADR 0017). The noise is drawn from the node's CSPRNG and scaled
   * to the product's integer units, where the flooding noise also covers its low bits.
   *
   * @throws IllegalArgumentException if {@code noiseStdDev} is not positive and finite
   * @throws IllegalStateException if {@code share} was used already
   */
  public List<SwitchedAnswer> roundTwo(
      Site site, Share share, List<Ciphertext> shares, double noiseStdDev) {
    if (!(noiseStdDev > 0) || Double.isInfinite(noiseStdDev)) {
      throw new IllegalArgumentException("the DP noise must be positive and finite");
    }
    double sigmaInUnits = noiseStdDev * shares.getFirst().scale() * weightScale(site.weightBound());
    return answers(site, share, shares, sigmaInUnits);
  }

  /** {@link #roundTwo} without DP noise, for tests that compare with the exact delta. */
  public List<SwitchedAnswer> roundTwoWithoutNoiseForTesting(
      Site site, Share share, List<Ciphertext> shares) {
    return answers(site, share, shares, 0.0);
  }

  /** Round two with DP noise of {@code sigmaInUnits} in the product's units (0: none). */
  private List<SwitchedAnswer> answers(
      Site site, Share share, List<Ciphertext> shares, double sigmaInUnits) {
    requireOwn(site);
    if (shares.size() != site.bChunks().chunks()) {
      throw new IllegalArgumentException(
          "the site reads its shares in "
              + site.bChunks().chunks()
              + " chunks, got "
              + shares.size());
    }
    shares.forEach(this::requireClientCiphertext);
    long[][] masks = share.take();
    if (masks.length != site.bChunks().dimension()) {
      throw new IllegalArgumentException("the share does not belong to this site");
    }
    int width = site.bChunks().chunkWidth();
    List<Ciphertext> unmasked = new ArrayList<>(shares.size());
    for (int j = 0; j < shares.size(); j++) {
      long[][] minusMask = new long[2][parameters.ringDegree()];
      for (int i = 0; i < width && j * width + i < masks.length; i++) {
        for (int l = 0; l < 2; l++) {
          long m = masks[j * width + i][l];
          minusMask[l][i] = m == 0 ? 0 : parameters.moduli().get(l).value() - m;
        }
      }
      RnsPoly poly = RnsPoly.wrap(minusMask, false);
      poly.toNttInPlace(parameters.ntts());
      Ciphertext chunk = shares.get(j);
      unmasked.add(Evaluator.addPlain(chunk, new Plaintext(poly, chunk.scale())));
    }
    java.util.Arrays.fill(masks, null);
    CoefficientLayout layout = site.bLayout();
    List<SwitchedAnswer> answers = new ArrayList<>(layout.plaintextCount());
    for (int p = 0; p < layout.plaintextCount(); p++) {
      int[] positions = layout.outputPositions(p);
      long[][] additions =
          OutputNoise.residues(
              parameters,
              positions.length,
              PrivateWeights.floodBound(site.b(), p),
              sigmaInUnits,
              random);
      List<ShoupPlaintext> weights = new ArrayList<>(site.b().size());
      for (PrivateWeights.Site chunk : site.b()) {
        weights.add(chunk.plaintexts().get(p));
      }
      answers.add(
          MaskedAnswers.switched(unmasked, weights, positions, additions, clientKey, random));
    }
    return List.copyOf(answers);
  }

  /** Columns {@code [j·w, (j+1)·w)} of {@code a}, zero beyond its width. */
  private static double[][] chunkOf(double[][] a, int j, int width) {
    double[][] out = new double[a.length][width];
    for (int i = 0; i < a.length; i++) {
      int from = j * width;
      int count = Math.max(0, Math.min(width, a[i].length - from));
      System.arraycopy(a[i], from, out[i], 0, count);
    }
    return out;
  }

  /** A uniform residue modulo each prime: a uniform value modulo Q. */
  private long[] uniformResidues() {
    long[] out = new long[2];
    for (int l = 0; l < 2; l++) {
      Modulus q = parameters.moduli().get(l);
      long bound = q.value();
      long mask = Long.highestOneBit(bound) * 2 - 1;
      long v;
      do {
        v = random.nextLong() & mask;
      } while (v >= bound);
      out[l] = v;
    }
    return out;
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
