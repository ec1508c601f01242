package io.tensafe.kernels.helora;

import io.tensafe.kernels.ckks.CoefficientEncoder;
import io.tensafe.kernels.params.InvalidParametersException;
import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.protocol.AnswerDecryption;
import io.tensafe.kernels.protocol.ShareAnswer;
import io.tensafe.kernels.protocol.SwitchedAnswer;
import io.tensafe.kernels.protocol.UploadSeeds;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.Encryptor;
import io.tensafe.kernels.rlwe.GaloisKeys;
import io.tensafe.kernels.rlwe.KeyGenerator;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.PublicKey;
import io.tensafe.kernels.rlwe.SecretKey;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The client's side of private-mode HE-LoRA ({@link SharedLoraNode}'s two rounds): it owns the
 * secret key, encrypts its inputs in chunks, reads its shares from round one's answers, encrypts
 * them for round two and decrypts the deltas. Only {@link #publicKey()} and ciphertexts under the
 * secret key leave it.
 *
 * <p>Parameters ({@link #parametersFor}): the smallest ring with N ≥ max(d, 2^12) and two 54-bit
 * primes, log Q ≈ 108 ≤ 109 (128-bit at N = 2^12, the HE Standard's table). Scales are the
 * session's ({@link PrivateScales}), c1 seeds the node's ({@link UploadSeeds}): nothing a
 * ciphertext carries besides its body depends on the input (ADR 0025).
 */
public final class PrivateClient {
  private final Parameters parameters;
  private final SecretKey secretKey;
  private final PublicKey publicKey;
  private final SecureRandom random;

  public PrivateClient(Parameters parameters, SecureRandom random) {
    if (parameters.limbCount() != 2) {
      throw new IllegalArgumentException(
          "private mode uses two primes; parameters have " + parameters.limbCount());
    }
    this.parameters = parameters;
    this.random = random;
    this.secretKey = KeyGenerator.secretKey(parameters, random);
    this.publicKey = KeyGenerator.publicKey(secretKey, random);
  }

  /** Parameters per log2 ring degree, built once per process (their NTT tables are costly). */
  private static final Map<Integer, Parameters> BY_LOG_N = new ConcurrentHashMap<>();

  /**
   * Private-mode parameters for inputs of {@code dimension} values, d in [1, 2^16]; the same
   * instance for every dimension of one ring.
   */
  public static Parameters parametersFor(int dimension) {
    if (dimension < 1 || dimension > 1 << Parameters.MAX_LOG_N) {
      throw new IllegalArgumentException("dimension must be in [1, 65536], was " + dimension);
    }
    int logN = Math.max(12, 32 - Integer.numberOfLeadingZeros(dimension - 1));
    return BY_LOG_N.computeIfAbsent(
        logN,
        n -> {
          try {
            return Parameters.of(new ParameterSpec(n, List.of(54, 54), 30));
          } catch (InvalidParametersException e) {
            throw new IllegalStateException("built-in private parameters must be valid", e);
          }
        });
  }

  public Parameters parameters() {
    return parameters;
  }

  /** The secret key: for this package's tests and theirs that play a deviating node. */
  SecretKey secretKey() {
    return secretKey;
  }

  /** The key the node encrypts its masks under. */
  public PublicKey publicKey() {
    return publicKey;
  }

  /**
   * Encrypts {@code x} for round 1 of {@link SharedLoraNode} in {@code seeds.size()} chunks of
   * {@link ChunkedLayout#chunkWidth} values (each at coefficients 0..w-1, the last zero-padded), at
   * the session's fixed input scale, chunk j's c1 from {@code seeds[j]} (the session's {@link
   * UploadSeeds}).
   *
   * @throws IllegalArgumentException if a value is not finite or {@code ‖x‖∞} exceeds the clip norm
   *     (clip to {@code ‖x‖₂ ≤ C} first)
   */
  public List<Ciphertext> encryptSharedInput(double[] x, PrivateScales scales, List<byte[]> seeds) {
    int chunks = seeds.size();
    ChunkedLayout layout = new ChunkedLayout(x.length, chunks, 1, parameters.ringDegree());
    if (largestAbs(x) > scales.clipNorm()) {
      throw new IllegalArgumentException(
          "an input's largest value exceeds the clip norm " + scales.clipNorm() + ": clip it");
    }
    int width = layout.chunkWidth();
    List<Ciphertext> out = new java.util.ArrayList<>(chunks);
    for (int j = 0; j < chunks; j++) {
      double[] chunk = new double[width];
      System.arraycopy(x, j * width, chunk, 0, Math.max(0, Math.min(width, x.length - j * width)));
      out.add(
          Encryptor.encrypt(
              CoefficientEncoder.encode(chunk, scales.input(), parameters, 2),
              secretKey,
              seeds.get(j),
              random));
    }
    return List.copyOf(out);
  }

  /**
   * Encrypts a whole polynomial of N coefficients at the input scale, as a modified client could
   * (the shipped runtime only ever fills a chunk's first w coefficients): for the test that shows
   * what inputs outside a chunk's support reach (ADR 0025).
   */
  Ciphertext encryptPolynomialForTesting(double[] coefficients, PrivateScales scales, byte[] seed) {
    return Encryptor.encrypt(
        CoefficientEncoder.encode(coefficients, scales.input(), parameters, 2),
        secretKey,
        seed,
        random);
  }

  /** {@code ‖x‖∞}. */
  private static double largestAbs(double[] x) {
    double largest = 0;
    for (double v : x) {
      if (!Double.isFinite(v)) {
        throw new IllegalArgumentException("input values must be finite");
      }
      largest = Math.max(largest, Math.abs(v));
    }
    return largest;
  }

  /**
   * The client's shares of a two-round protocol ({@link SharedLoraNode}): each output of the node's
   * round-1 answers as residues modulo both primes, {@code [r + 1][2]} (the rows and the node's
   * check row), each in [0, q_l). They are uniform and tell the client nothing on their own.
   *
   * @param answers A's packed answers ({@code outputs}), then the check answer
   * @param outputs where round one's answers carry A's rows ({@link SharedLoraNode.Site#aOutputs})
   */
  public long[][] decryptShares(List<ShareAnswer> answers, PackedOutputs outputs) {
    if (answers.size() != outputs.answers() + 1) {
      throw new IllegalArgumentException(
          "expected " + (outputs.answers() + 1) + " answers, got " + answers.size());
    }
    int rank = outputs.layout().rank();
    long[][] shares = new long[rank + 1][];
    for (int a = 0; a < outputs.answers(); a++) {
      long[][] residues = AnswerDecryption.shares(answers.get(a), secretKey, outputs.positions(a));
      System.arraycopy(residues, 0, shares, outputs.firstRow(a), residues.length);
    }
    int check = SharedLoraNode.checkPosition(parameters.ringDegree());
    shares[rank] = AnswerDecryption.shares(answers.getLast(), secretKey, new int[] {check})[0];
    return shares;
  }

  /**
   * The deltas {@code B·A·x} (plus the node's DP noise) that round 2's packed answers decrypt to,
   * one per output row of B's layout, where {@code outputs} puts them.
   */
  public double[] decryptDeltas(List<SwitchedAnswer> answers, PackedOutputs outputs) {
    if (answers.size() != outputs.answers()) {
      throw new IllegalArgumentException(
          "expected " + outputs.answers() + " answers, got " + answers.size());
    }
    double modulus =
        (double) parameters.moduli().get(0).value() * parameters.moduli().get(1).value();
    double[] out = new double[outputs.layout().rank()];
    for (int a = 0; a < answers.size(); a++) {
      SwitchedAnswer answer = answers.get(a);
      long[] values = AnswerDecryption.switched(answer, secretKey, outputs.positions(a));
      double unit = Math.scalb(modulus, -answer.bits()) / answer.scale();
      int first = outputs.firstRow(a);
      for (int i = 0; i < values.length; i++) {
        out[first + i] = values[i] * unit;
      }
    }
    return out;
  }

  /**
   * This client's key-switching keys for the automorphisms the node packs answers with ({@link
   * GaloisKeys#packingElements}), fresh from the secret key: sent once per session.
   */
  public GaloisKeys galoisKeys() {
    return GaloisKeys.generate(secretKey, GaloisKeys.packingElements(parameters), random);
  }

  /**
   * Encrypts {@code shares} ({@code [count][2]} residues in [0, q_l)) for round two in {@code
   * seeds.size()} chunks of {@link ChunkedLayout#chunkWidth} shares, each at coefficients 0..w-1,
   * under the secret key at the session's share scale, chunk j's c1 from {@code seeds[j]}.
   */
  public List<Ciphertext> encryptShares(long[][] shares, PrivateScales scales, List<byte[]> seeds) {
    int n = parameters.ringDegree();
    if (shares.length == 0 || shares.length > n) {
      throw new IllegalArgumentException("between 1 and " + n + " shares, got " + shares.length);
    }
    int chunks = seeds.size();
    ChunkedLayout layout = new ChunkedLayout(shares.length, chunks, 1, n);
    int width = layout.chunkWidth();
    List<Ciphertext> out = new java.util.ArrayList<>(chunks);
    for (int j = 0; j < chunks; j++) {
      long[][] limbs = new long[2][n];
      for (int i = 0; i < width && j * width + i < shares.length; i++) {
        for (int l = 0; l < 2; l++) {
          long v = shares[j * width + i][l];
          if (v < 0 || v >= parameters.moduli().get(l).value()) {
            throw new IllegalArgumentException(
                "share " + (j * width + i) + " is not a residue of prime " + l);
          }
          limbs[l][i] = v;
        }
      }
      RnsPoly poly = RnsPoly.wrap(limbs, false);
      poly.toNttInPlace(parameters.ntts());
      out.add(
          Encryptor.encrypt(new Plaintext(poly, scales.share()), secretKey, seeds.get(j), random));
    }
    return List.copyOf(out);
  }
}
