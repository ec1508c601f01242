package io.tensafe.kernels.helora;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerPacking;
import io.tensafe.kernels.protocol.MaskedAnswers;
import io.tensafe.kernels.protocol.ShareAnswer;
import io.tensafe.kernels.protocol.SwitchedAnswer;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.Evaluator;
import io.tensafe.kernels.rlwe.GaloisKeys;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.PublicKey;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The node's side of two-round private LoRA (ADR 0017, ADR 0018's compact answers and ADR 0025's
 * bound rounds): it holds A and B and the client's public key, and sees only ciphertexts under the
 * client's key, every one at a scale fixed by the session ({@link PrivateScales}).
 *
 * <ol>
 *   <li>{@link #roundOne}: the client sends x in {@link ChunkedLayout} chunks; the node answers
 *       each plaintext of A's products in its own {@link ShareAnswer}, re-randomised under the
 *       client's public key (no key switch: the client's Galois keys never touch what B later
 *       multiplies, ADR 0037), and adds a check answer whose single output holds {@code y_r = Σ_i
 *       h_i·y_i} for the products before re-randomisation (h fresh per site and token, {@code |h_i|
 *       ≤ 2^16}), every output masked by M, uniform modulo Q. The client's decryption is its share
 *       {@code s = y + M + η} of y, the rows' outputs for the input as encrypted (its error and the
 *       layout's cross terms included), η the re-randomisation's noise ({@code u·e_pk + e0 + e1·s},
 *       about 2^8); s is uniform and independent of y.
 *   <li>{@link #roundTwo}: the client encrypts its r + 1 shares; the node subtracts M (so the
 *       plaintext is {@code z = y + η + e'}, e' the client's encryption error) and computes {@code
 *       B·z + G·d} with {@code d = hᵀ·z_(0..r−1) − z_r} and G fresh per site and token ({@code
 *       |G_o| ≤ 2^42}): {@code B' = [B + G·hᵀ | −G]} applied to z, as B's static plaintexts plus
 *       one rank-one term ({@link #checkSum}). For an honest client d is {@code hᵀ(η + e') − η_r −
 *       e'_r}, about 2^26, so {@code G·d} stays below the flooding; a client that substituted v for
 *       its shares, or whose public key's error put v into η, has {@code |d| ≥ ‖v‖∞/2} unless it
 *       guessed one {@code h_i} (chance at most 2^-17 per site and token), and {@code G·d} then
 *       covers {@code B·v} (within statistical distance about 2^-12 per output). Then it adds
 *       flooding uniform in {@code ±F} ({@link PrivateWeights#floodBound} of B's own plaintexts,
 *       plus 2^40 times the switching noise's bound when answers are packed) and the DP noise, and
 *       answers as {@link SwitchedAnswer}s, packed as {@link Site#bOutputs} says.
 * </ol>
 *
 * <p>Scales never depend on the adapter's data or the client's: A and B are rounded at {@code Δa}
 * and {@code Δb} from the signed weight bounds, inputs must carry {@code Δx} from the clip norm.
 * Round two always adds the DP noise its caller gives, which the caller takes from the node's own
 * policy and the signed bounds (never from a client). Thread-safe; a {@link Share} is used once.
 */
public final class SharedLoraNode {
  /** {@code |h_i| ≤ 2^16}: a substitution passes round two's check with chance at most 2^-16. */
  static final int CHECK_BITS = 16;

  /** {@code |G_o| ≤ 2^42}: a failed substitution's {@code G·d} covers {@code B·v} by 2^11. */
  static final int FOLD_BITS = 42;

  private final Parameters parameters;
  private final PublicKey clientKey;
  private final SecureRandom random;
  private final PrivateWeights packer;
  private final AnswerPacking packing;

  /**
   * @param clientKey the client's public key, which every answer is re-randomised under
   * @param galoisKeys the client's key-switching keys for the same ring, at least {@link
   *     GaloisKeys#packingElements}: the answers are packed with them (ADR 0032)
   */
  public SharedLoraNode(PublicKey clientKey, GaloisKeys galoisKeys, SecureRandom random) {
    if (!galoisKeys.parameters().equals(clientKey.parameters())) {
      throw new IllegalArgumentException("the Galois keys are for another ring");
    }
    this.parameters = clientKey.parameters();
    if (!galoisKeys.elements().containsAll(GaloisKeys.packingElements(parameters))) {
      throw new IllegalArgumentException(
          "answers are packed with the automorphisms "
              + GaloisKeys.packingElements(parameters)
              + "; the client's keys are for "
              + galoisKeys.elements());
    }
    this.clientKey = clientKey;
    this.random = random;
    this.packer = new PrivateWeights(clientKey.parameters());
    this.packing = new AnswerPacking(galoisKeys);
  }

  /** The most shares one chunk of round two holds. */
  public static final int MAX_SHARE_WIDTH = 64;

  /**
   * A site: A ({@code r × d}) packed per input chunk, and B ({@code dOut × r}, any LoRA scaling
   * folded in, with a zero column for the check share) packed per share chunk; all rounded at the
   * session's {@code Δa} and {@code Δb}; where each round's answers carry the outputs.
   *
   * @param inputChunks the chunks round one's input comes in
   * @param aOutputs A's layout per chunk (rows a power of two apart) and its one packed answer
   * @param bChunks the r + 1 shares' chunks
   * @param bOutputs B's layout per share chunk and its packing
   * @param parameters the ring the plaintexts are packed for
   * @param owner the node whose rounds take the site, null until one {@link #adopt}s it
   */
  public record Site(
      int inputChunks,
      PackedOutputs aOutputs,
      List<PrivateWeights.Site> a,
      ChunkedLayout bChunks,
      PackedOutputs bOutputs,
      List<PrivateWeights.Site> b,
      PrivateScales scales,
      Parameters parameters,
      SharedLoraNode owner) {
    /** A's layout per chunk: r outputs (the shares; the check answer comes after). */
    public CoefficientLayout aLayout() {
      return aOutputs.layout();
    }

    /** B's layout per share chunk: dOut outputs. */
    public CoefficientLayout bLayout() {
      return bOutputs.layout();
    }

    /** r. */
    public int rank() {
      return bChunks.dimension() - 1;
    }

    /** B's plaintexts' norms per share chunk, for the flooding bound. */
    List<List<double[]>> bNorms() {
      return b.stream().map(PrivateWeights.Site::norms).toList();
    }
  }

  /** What round one keeps for round two: the masks and the check row's h. */
  private record Held(long[][] masks, long[] check) {}

  /**
   * The node's half of one token's secret: M at y's output coefficients ({@code [r + 1][2]}
   * residues) and h. Never leaves the node; {@link #roundTwo} takes it once.
   */
  public static final class Share {
    private Held held;

    private Share(Held held) {
      this.held = held;
    }

    private synchronized Held take() {
      if (held == null) {
        throw new IllegalStateException("this share was used already");
      }
      Held taken = held;
      held = null;
      return taken;
    }
  }

  /**
   * Round 1's answer: A's packed answers ({@link Site#aOutputs}), then the check answer; and the
   * share the node keeps.
   */
  public record RoundOne(List<ShareAnswer> toClient, Share share) {}

  /**
   * Packs a site whose input arrives in {@code chunks} chunks, its round two as {@code roundTwo}
   * says ({@link PrivatePacking}).
   *
   * @throws IllegalArgumentException if the shapes do not chain (B's rows have A's row count), a
   *     row of A's L2 norm or of B's L1 norm exceeds the scales' bounds, or a chunk count does not
   *     fit its width
   */
  public Site prepare(
      double[][] a,
      double[][] b,
      PrivateScales scales,
      int chunks,
      PrivatePacking.RoundTwo roundTwo) {
    return adopt(prepareShared(parameters, a, b, scales, chunks, roundTwo));
  }

  /**
   * As {@link #prepare}, for every node of {@code parameters}: a site's plaintexts follow from its
   * weights, the session's public scales and the layout alone, never from a client's key, so one
   * packing serves every session of the same adapter, plan and scales (ADR 0034). Its owner is
   * null: a node {@link #adopt}s it before its rounds.
   */
  public static Site prepareShared(
      Parameters parameters,
      double[][] a,
      double[][] b,
      PrivateScales scales,
      int chunks,
      PrivatePacking.RoundTwo roundTwo) {
    PrivateWeights packer = new PrivateWeights(parameters);
    if (a.length == 0 || b.length == 0 || b[0].length != a.length) {
      throw new IllegalArgumentException("B must have A's row count as its width");
    }
    if (RowChecks.maxRowL2(a) > scales.aBound() || RowChecks.maxRowL1(b) > scales.bBound()) {
      throw new IllegalArgumentException("a row's norm exceeds the signed weight bounds");
    }
    int r = a.length;
    int n = parameters.ringDegree();
    PackedOutputs bOutputs = roundTwo.outputs();
    if (bOutputs.layout().rank() != b.length || bOutputs.layout().ringDegree() != n) {
      throw new IllegalArgumentException("round two's layout is not for this B");
    }
    long[][] aInts = PrivateWeights.quantize(a, scales.a());
    long[][] bInts = PrivateWeights.quantize(b, scales.b());
    int aWidth = new ChunkedLayout(a[0].length, chunks, r, n).chunkWidth();
    PackedOutputs aOutputs = PrivatePacking.roundOne(a[0].length, chunks, r, n);
    ChunkedLayout bChunks = new ChunkedLayout(r + 1, roundTwo.shareChunks(), b.length, n);
    List<PrivateWeights.Site> aSites = new ArrayList<>(chunks);
    for (int j = 0; j < chunks; j++) {
      long[][] chunk = chunkOf(aInts, j, aWidth);
      aSites.add(packer.prepare(widened(chunk, aOutputs.spacing()), scales.a()));
    }
    long[][] bWithCheck = new long[b.length][];
    for (int o = 0; o < b.length; o++) {
      bWithCheck[o] = Arrays.copyOf(bInts[o], r + 1);
    }
    List<PrivateWeights.Site> bSites = new ArrayList<>(bChunks.chunks());
    for (int j = 0; j < bChunks.chunks(); j++) {
      long[][] chunk = chunkOf(bWithCheck, j, bChunks.chunkWidth());
      bSites.add(packer.prepare(widened(chunk, bOutputs.spacing()), scales.b()));
    }
    return new Site(
        chunks,
        aOutputs,
        List.copyOf(aSites),
        bChunks,
        bOutputs,
        List.copyOf(bSites),
        scales,
        parameters,
        null);
  }

  /**
   * {@code site} (packed by {@link #prepareShared} or another node) as this node's: the same
   * plaintexts, shared read-only.
   *
   * @throws IllegalArgumentException if it was packed for another ring
   */
  public Site adopt(Site site) {
    if (!site.parameters().equals(parameters)) {
      throw new IllegalArgumentException("the site was packed for another ring");
    }
    return new Site(
        site.inputChunks(),
        site.aOutputs(),
        site.a(),
        site.bChunks(),
        site.bOutputs(),
        site.b(),
        site.scales(),
        site.parameters(),
        this);
  }

  /**
   * Round 1 on the client's encrypted input chunks ({@link ChunkedLayout}, 2 limbs each, at the
   * session's input scale): one answer per plaintext of A ({@link Site#aOutputs}: no key switch on
   * the client's Galois keys, ADR 0037), each re-randomised under the client's public key and
   * masked by M at its outputs, and the check answer computed on the products before their
   * re-randomisation, so {@code y_r = Σ_i h_i·y_i} holds for the products and each answer's
   * re-randomisation noise (with any error the client put in its public key) enters the check's
   * difference with its own h_i.
   */
  public RoundOne roundOne(Site site, List<Ciphertext> chunks) {
    requireOwn(site);
    if (chunks.size() != site.inputChunks()) {
      throw new IllegalArgumentException(
          "the site reads " + site.inputChunks() + " chunks, got " + chunks.size());
    }
    chunks.forEach(ct -> requireClientCiphertext(ct, site.scales().input()));
    PackedOutputs outputs = site.aOutputs();
    if (outputs.perAnswer() != 1) {
      throw new IllegalStateException("round one switches no key: one plaintext per answer");
    }
    CoefficientLayout layout = outputs.layout();
    int n = parameters.ringDegree();
    int r = site.rank();
    double scale = site.scales().share();
    long[] h = uniformSigned(r, CHECK_BITS);
    long[][] masks = new long[r + 1][];
    List<ShareAnswer> toClient = new ArrayList<>(outputs.answers() + 1);
    List<long[][][]> products = new ArrayList<>(outputs.answers());
    List<long[]> checks = new ArrayList<>(outputs.answers());
    for (int a = 0; a < outputs.answers(); a++) {
      List<ShoupPlaintext> weights = new ArrayList<>(chunks.size());
      for (PrivateWeights.Site chunk : site.a()) {
        weights.add(chunk.plaintexts().get(a));
      }
      long[][][] product = MaskedAnswers.products(chunks, weights);
      int[] positions = outputs.positions(a);
      long[][][] answer = MaskedAnswers.reRandomised(product, positions, 0, clientKey, random);
      long[][] mask = new long[positions.length][];
      long[] check = new long[n];
      for (int i = 0; i < positions.length; i++) {
        int row = outputs.firstRow(a) + i;
        mask[i] = uniformResidues();
        masks[row] = mask[i];
        check[n - 1 - positions[i]] = h[row];
      }
      products.add(product);
      checks.add(check);
      toClient.add(MaskedAnswers.sharePacked(parameters, answer, positions, mask, scale));
    }
    masks[r] = uniformResidues();
    toClient.add(
        MaskedAnswers.check(
            products, checks, checkPosition(n), masks[r], scale, clientKey, random));
    return new RoundOne(List.copyOf(toClient), new Share(new Held(masks, h)));
  }

  /** Where a check answer's one output is in a ring of degree N: the top coefficient, N − 1. */
  public static int checkPosition(int ringDegree) {
    return ringDegree - 1;
  }

  /**
   * Round 2 on the client's r + 1 encrypted shares (in the site's share chunks, each at
   * coefficients 0..w'-1, at the session's share scale): B's answers, which decrypt to {@code
   * B·A·x} plus, on every output, Gaussian noise of standard deviation {@code noiseStdDev} in the
   * outputs' own units. The caller takes {@code noiseStdDev} from its own policy and the signed
   * bounds, never from the client; 0 only where the adapter's signed policy chose no DP noise (ADR
   * 0035). The noise is drawn from the node's CSPRNG.
   *
   * @throws IllegalArgumentException if {@code noiseStdDev} is negative or not finite, or a share
   *     is not at the session's scale
   * @throws IllegalStateException if {@code share} was used already
   */
  public List<SwitchedAnswer> roundTwo(
      Site site, Share share, List<Ciphertext> shares, double noiseStdDev) {
    if (!(noiseStdDev >= 0) || Double.isInfinite(noiseStdDev)) {
      throw new IllegalArgumentException("the DP noise must be finite and not negative");
    }
    return answers(site, share, shares, noiseStdDev * site.scales().delta());
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
    shares.forEach(ct -> requireClientCiphertext(ct, site.scales().share()));
    Held held = share.take();
    long[][] masks = held.masks();
    if (masks.length != site.bChunks().dimension()) {
      throw new IllegalArgumentException("the share does not belong to this site");
    }
    List<Ciphertext> unmasked = unmasked(shares, masks, site.bChunks().chunkWidth());
    CoefficientLayout layout = site.bLayout();
    long[] g = uniformSigned(layout.rank(), FOLD_BITS);
    List<Ciphertext> inputs = new ArrayList<>(unmasked);
    int width = site.bChunks().chunkWidth();
    inputs.add(checkSum(unmasked, held.check(), width));
    int rows = layout.rowsPerPlaintext();
    PackedOutputs outputs = site.bOutputs();
    List<List<double[]>> norms = site.bNorms();
    List<long[][][]> leaves = new ArrayList<>(layout.plaintextCount());
    for (int p = 0; p < layout.plaintextCount(); p++) {
      List<ShoupPlaintext> weights = new ArrayList<>(inputs.size());
      for (PrivateWeights.Site chunk : site.b()) {
        weights.add(chunk.plaintexts().get(p));
      }
      long[] fold = new long[parameters.ringDegree()];
      for (int b = 0; b < layout.outputPositions(p).length; b++) {
        fold[layout.weightCoefficient(b, width - 1)] = g[p * rows + b];
      }
      weights.add(new ShoupPlaintext(new Plaintext(packer.ntt(fold), 1.0), parameters.moduli()));
      leaves.add(
          MaskedAnswers.leaf(
              inputs, weights, layout.outputPositions(p), outputs.leafShift(), clientKey, random));
    }
    double scale = shares.getFirst().scale() * site.scales().b();
    List<SwitchedAnswer> answers = new ArrayList<>(outputs.answers());
    for (int a = 0; a < outputs.answers(); a++) {
      int first = outputs.firstPlaintext(a);
      int count = outputs.plaintexts(a);
      long[][][] packed = packing.pack(leaves.subList(first, first + count), outputs.spacing());
      BigInteger switching =
          count == 1
              ? BigInteger.ZERO
              : BigInteger.valueOf((long) Math.ceil(AnswerPacking.noiseBound(parameters, count)))
                  .shiftLeft(PrivateWeights.FLOODING_BITS);
      int[] positions = outputs.positions(a);
      long[][] additions = new long[positions.length][];
      int i = 0;
      for (int p = first; p < first + count; p++) {
        int rowsHeld = layout.outputPositions(p).length;
        long[][] noise =
            OutputNoise.residues(
                parameters,
                rowsHeld,
                PrivateWeights.floodBound(norms, p).add(switching),
                sigmaInUnits,
                random);
        System.arraycopy(noise, 0, additions, i, rowsHeld);
        i += rowsHeld;
      }
      answers.add(MaskedAnswers.switchedPacked(parameters, packed, positions, additions, scale));
    }
    return List.copyOf(answers);
  }

  /**
   * {@code Σ_j z_j·H_j} with {@code H_j = Σ_i c_(j·w+i)·X^(w−1−i)} and {@code c = (h, −1)}: its
   * plaintext holds {@code d = hᵀ·z_(0..r−1) − z_r} at coefficient w − 1. Times {@code G_p = Σ_b
   * G_b·X^(b·w)} it gives {@code G_b·d} at each output {@code k_b = b·w + w − 1} of plaintext p:
   * {@code z·(G_p·H)} is z times the rank-one matrix {@code G·cᵀ} in B's layout, so the layout's
   * guarantee (row b's output collects only block b) holds for it as for B. This is {@code B' = [B
   * + G·hᵀ | −G]} at one NTT per chunk and per plaintext a token, instead of B' encoded afresh.
   */
  private Ciphertext checkSum(List<Ciphertext> chunks, long[] h, int width) {
    Ciphertext sum = null;
    for (int j = 0; j < chunks.size(); j++) {
      long[] coefficients = new long[parameters.ringDegree()];
      for (int i = 0; i < width && j * width + i <= h.length; i++) {
        int index = j * width + i;
        coefficients[width - 1 - i] = index < h.length ? h[index] : -1;
      }
      Ciphertext term =
          Evaluator.multiplyPlain(chunks.get(j), new Plaintext(packer.ntt(coefficients), 1.0));
      sum = sum == null ? term : Evaluator.add(sum, term);
    }
    return sum;
  }

  /** The shares minus M at their input coefficients: encryptions of {@code z = y + e'}. */
  private List<Ciphertext> unmasked(List<Ciphertext> shares, long[][] masks, int width) {
    List<Ciphertext> out = new ArrayList<>(shares.size());
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
      out.add(Evaluator.addPlain(chunk, new Plaintext(poly, chunk.scale())));
    }
    Arrays.fill(masks, null);
    return out;
  }

  /** {@code m} with zero columns up to {@code width}. */
  private static long[][] widened(long[][] m, int width) {
    long[][] out = new long[m.length][];
    for (int i = 0; i < m.length; i++) {
      out[i] = Arrays.copyOf(m[i], width);
    }
    return out;
  }

  /** Columns {@code [j·w, (j+1)·w)} of {@code m}, zero beyond its width. */
  private static long[][] chunkOf(long[][] m, int j, int width) {
    long[][] out = new long[m.length][width];
    for (int i = 0; i < m.length; i++) {
      int from = j * width;
      int count = Math.max(0, Math.min(width, m[i].length - from));
      System.arraycopy(m[i], from, out[i], 0, count);
    }
    return out;
  }

  /** {@code count} values uniform in {@code [-2^bits, 2^bits]} from the node's CSPRNG. */
  private long[] uniformSigned(int count, int bits) {
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = random.nextLong(-(1L << bits), (1L << bits) + 1);
    }
    return out;
  }

  /** A uniform residue modulo each prime: a uniform value modulo Q. */
  private long[] uniformResidues() {
    long[] out = new long[2];
    for (int l = 0; l < 2; l++) {
      Modulus q = parameters.moduli().get(l);
      out[l] = random.nextLong(q.value());
    }
    return out;
  }

  private void requireOwn(Site site) {
    if (site.owner() != this) {
      throw new IllegalArgumentException("site was prepared by another node operator");
    }
  }

  private void requireClientCiphertext(Ciphertext ct, double scale) {
    if (!ct.parameters().equals(parameters) || ct.limbCount() != 2) {
      throw new IllegalArgumentException("ciphertext does not match the client's parameters");
    }
    if (Double.doubleToRawLongBits(ct.scale()) != Double.doubleToRawLongBits(scale)) {
      throw new IllegalArgumentException(
          "a ciphertext's scale is the session's " + scale + ", not " + ct.scale());
    }
  }
}
