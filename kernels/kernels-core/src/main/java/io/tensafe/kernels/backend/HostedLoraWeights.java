package io.tensafe.kernels.backend;

import io.tensafe.kernels.ring.CoefficientExtractor;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import java.util.List;

/**
 * One hosted HE-LoRA site as a backend sees it: the session's secret key and the site's prepared
 * plaintexts, all in NTT form under one prime, and which coefficients of each decrypted product
 * hold outputs. Built once per site by the operator; a GPU backend uploads it once and keeps it on
 * the device (it caches by identity, so this class deliberately keeps {@link Object#equals}).
 *
 * <p>Invariants: every array has the ring degree n of {@link #ntt()}; residues in [0, q); at least
 * one plaintext and one output position, positions in [0, n) and distinct. The arrays are owned by
 * this object and never handed out for writing: backends read them only.
 */
public final class HostedLoraWeights {
  /**
   * At most this many outputs per product are read by inner products (O(n) each) rather than an
   * inverse NTT; it is also the most a GPU reads in its fused kernel.
   */
  public static final int MAX_EXTRACTED_OUTPUTS = 6;

  private final NegacyclicNtt ntt;
  private final long[] secretKey;
  private final long[] secretKeyShoup;
  private final long[][] plaintexts;
  private final long[][] plaintextsShoup;
  private final int[] positions;
  private final List<CoefficientExtractor> extractors;
  // The FMA loops' forms, built on first use (a benign race: each build gives equal arrays).
  private volatile FmaWeights fmaWeights;

  /**
   * @param ntt the ring and prime
   * @param secretKey s in NTT form, with {@code secretKeyShoup} its Shoup companions
   * @param plaintexts P prepared plaintexts in NTT form (taken over, not copied)
   * @param extractors one per output coefficient of each product, in output order
   */
  public HostedLoraWeights(
      NegacyclicNtt ntt,
      long[] secretKey,
      long[] secretKeyShoup,
      long[][] plaintexts,
      List<CoefficientExtractor> extractors) {
    int n = ntt.degree();
    if (secretKey.length != n || secretKeyShoup.length != n) {
      throw new IllegalArgumentException("secret key must have " + n + " values");
    }
    if (plaintexts.length == 0 || extractors.isEmpty()) {
      throw new IllegalArgumentException("a site needs at least one plaintext and one output");
    }
    Modulus q = ntt.modulus();
    this.plaintextsShoup = new long[plaintexts.length][];
    for (int p = 0; p < plaintexts.length; p++) {
      if (plaintexts[p].length != n) {
        throw new IllegalArgumentException("plaintext " + p + " must have " + n + " values");
      }
      plaintextsShoup[p] = q.shoupPrecomputeAll(plaintexts[p]);
    }
    this.ntt = ntt;
    this.secretKey = secretKey.clone();
    this.secretKeyShoup = secretKeyShoup.clone();
    this.plaintexts = plaintexts;
    this.extractors = List.copyOf(extractors);
    this.positions = this.extractors.stream().mapToInt(CoefficientExtractor::position).toArray();
  }

  public NegacyclicNtt ntt() {
    return ntt;
  }

  /** P, the number of prepared plaintexts. */
  public int plaintextCount() {
    return plaintexts.length;
  }

  /** B, the outputs read from each product. */
  public int outputsPerPlaintext() {
    return positions.length;
  }

  /** True when outputs are read by inner products rather than an inverse NTT of each product. */
  public boolean extractsOutputs() {
    return positions.length <= MAX_EXTRACTED_OUTPUTS;
  }

  long[] secretKey() {
    return secretKey;
  }

  long[] secretKeyShoup() {
    return secretKeyShoup;
  }

  long[] plaintext(int p) {
    return plaintexts[p];
  }

  long[] plaintextShoup(int p) {
    return plaintextsShoup[p];
  }

  FmaWeights fmaWeights() {
    FmaWeights forms = fmaWeights;
    if (forms == null) {
      forms = FmaWeights.of(this);
      fmaWeights = forms;
    }
    return forms;
  }

  int position(int b) {
    return positions[b];
  }

  CoefficientExtractor extractor(int b) {
    return extractors.get(b);
  }

  /** For accelerator backends: copies of the arrays in upload order. */
  public Upload upload() {
    long[][] weights = new long[positions.length][];
    long[][] weightsShoup = new long[positions.length][];
    for (int b = 0; b < positions.length; b++) {
      weights[b] = extractors.get(b).weights();
      weightsShoup[b] = extractors.get(b).weightsShoup();
    }
    return new Upload(
        secretKey.clone(),
        secretKeyShoup.clone(),
        plaintexts.clone(),
        plaintextsShoup.clone(),
        positions.clone(),
        weights,
        weightsShoup);
  }

  /**
   * What a device copy holds; the row arrays are shared with the weights and must not be written.
   */
  public record Upload(
      long[] secretKey,
      long[] secretKeyShoup,
      long[][] plaintexts,
      long[][] plaintextsShoup,
      int[] positions,
      long[][] extractionWeights,
      long[][] extractionWeightsShoup) {}
}
