package io.tensafe.kernels.helora;

import io.tensafe.kernels.ckks.CoefficientEncoder;
import io.tensafe.kernels.params.InvalidParametersException;
import io.tensafe.kernels.params.ParameterSpec;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.CoefficientExtractor;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.rlwe.AnswerDecryption;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.Decryptor;
import io.tensafe.kernels.rlwe.Encryptor;
import io.tensafe.kernels.rlwe.KeyGenerator;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.PublicKey;
import io.tensafe.kernels.rlwe.SecretKey;
import io.tensafe.kernels.rlwe.ShareAnswer;
import io.tensafe.kernels.rlwe.SwitchedAnswer;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The client's side of private-mode HE-LoRA: it owns the secret key, encrypts its LoRA inputs and
 * decrypts the node's masked products. Only {@link #publicKey()} and input ciphertexts leave it.
 *
 * <p>Parameters ({@link #parametersFor}): the smallest ring with N ≥ max(d, 2^12) and two 54-bit
 * primes, log Q ≈ 108 ≤ 109 (128-bit at N = 2^12). Inputs are encoded with {@code Δx·‖x‖∞ = 2^75},
 * weights with {@code Δa·‖A_i‖₁ ≤ 2^30}: the product is below 2^105 and the node's flooding noise
 * below 2^76 for up to 2^11 rows per plaintext, so decrypted outputs never wrap (Q/4 > 2^105) and
 * flooding costs at most 2^-29 of {@code ‖x‖∞·‖A_i‖₁} in precision.
 */
public final class PrivateClient {
  static final double INPUT_SCALE_BITS = 75;

  /**
   * Input scale of the two-round protocol ({@link SharedLoraNode}): {@code Δx·‖x‖∞ = 2^44}, so
   * round two's product stays below {@code 2^(44+30+30) = 2^104 ≤ Q/4} (Q ≥ 2^106 for two 54-bit
   * primes), with room for the flooding noise (below 2^90).
   */
  static final double SHARED_INPUT_SCALE_BITS = 44;

  private final Parameters parameters;
  private final SecretKey secretKey;
  private final PublicKey publicKey;
  private final SecureRandom random;
  private final Map<Integer, CoefficientExtractor[]> extractors = new ConcurrentHashMap<>();

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

  /** For tests in this package that inspect whole decryptions. */
  SecretKey secretKeyForTesting() {
    return secretKey;
  }

  /** The key the node encrypts its masks under. */
  public PublicKey publicKey() {
    return publicKey;
  }

  /** Encrypts {@code x} under the secret key, c1 as a seed, with {@code Δx·‖x‖∞ = 2^75}. */
  public Ciphertext encryptInput(double[] x) {
    return encryptInput(x, INPUT_SCALE_BITS);
  }

  /**
   * Encrypts {@code x} for round 1 of {@link SharedLoraNode} in {@code chunks} chunks of {@link
   * ChunkedLayout#chunkWidth} values (each at coefficients 0..w-1, the last zero-padded), all at
   * one scale with {@code Δx·‖x‖∞ = 2^44}.
   */
  public List<Ciphertext> encryptSharedInput(double[] x, int chunks) {
    ChunkedLayout layout = new ChunkedLayout(x.length, chunks, 1, parameters.ringDegree());
    double scale = Math.pow(2, SHARED_INPUT_SCALE_BITS) / largestAbs(x);
    int width = layout.chunkWidth();
    List<Ciphertext> out = new java.util.ArrayList<>(chunks);
    for (int j = 0; j < chunks; j++) {
      double[] chunk = new double[width];
      System.arraycopy(x, j * width, chunk, 0, Math.max(0, Math.min(width, x.length - j * width)));
      out.add(
          Encryptor.encrypt(
              CoefficientEncoder.encode(chunk, scale, parameters, 2), secretKey, random));
    }
    return List.copyOf(out);
  }

  /** {@code ‖x‖∞}, or 1 for a zero vector. */
  private static double largestAbs(double[] x) {
    double largest = 0;
    for (double v : x) {
      if (!Double.isFinite(v)) {
        throw new IllegalArgumentException("input values must be finite");
      }
      largest = Math.max(largest, Math.abs(v));
    }
    return largest > 0 ? largest : 1;
  }

  private Ciphertext encryptInput(double[] x, double scaleBits) {
    double scale = Math.pow(2, scaleBits) / largestAbs(x);
    return Encryptor.encrypt(CoefficientEncoder.encode(x, scale, parameters, 2), secretKey, random);
  }

  /**
   * Decrypts the node's product ciphertexts and reads the r outputs. Every other coefficient
   * decrypts to a uniform residue and is never read.
   */
  public double[] decryptOutputs(List<Ciphertext> products, CoefficientLayout layout) {
    if (products.size() != layout.plaintextCount()) {
      throw new IllegalArgumentException(
          "expected " + layout.plaintextCount() + " product ciphertexts, got " + products.size());
    }
    List<Modulus> moduli = parameters.moduli();
    BigInteger q0 = BigInteger.valueOf(moduli.get(0).value());
    BigInteger q1 = BigInteger.valueOf(moduli.get(1).value());
    BigInteger modulus = q0.multiply(q1);
    BigInteger half = modulus.shiftRight(1);
    BigInteger q0InverseModQ1 = q0.modInverse(q1);
    int rows = layout.rowsPerPlaintext();
    double[] outputs = new double[layout.rank()];
    for (int p = 0; p < products.size(); p++) {
      Ciphertext ct = products.get(p);
      long[][] residues = residues(ct, layout, p);
      for (int b = 0; b < residues.length; b++) {
        // Garner: x = r0 + q0·((r1 - r0)·q0^-1 mod q1), then centre mod Q.
        BigInteger k =
            BigInteger.valueOf(residues[b][1])
                .subtract(BigInteger.valueOf(residues[b][0]))
                .multiply(q0InverseModQ1)
                .mod(q1);
        BigInteger x = BigInteger.valueOf(residues[b][0]).add(k.multiply(q0));
        if (x.compareTo(half) > 0) {
          x = x.subtract(modulus);
        }
        outputs[p * rows + b] = x.doubleValue() / ct.scale();
      }
    }
    return outputs;
  }

  /**
   * The client's shares of a two-round protocol ({@link SharedLoraNode}): each output coefficient
   * of the node's round-1 answers as residues modulo both primes, {@code [rank][2]}, each in [0,
   * q_l). They are uniform and tell the client nothing on their own.
   *
   * @param layout A's per-chunk layout ({@link ChunkedLayout#perChunk})
   */
  public long[][] decryptShares(List<ShareAnswer> answers, CoefficientLayout layout) {
    requireAnswers(answers.size(), layout);
    int rows = layout.rowsPerPlaintext();
    long[][] shares = new long[layout.rank()][];
    for (int p = 0; p < answers.size(); p++) {
      long[][] residues =
          AnswerDecryption.shares(answers.get(p), secretKey, layout.outputPositions(p));
      System.arraycopy(residues, 0, shares, p * rows, residues.length);
    }
    return shares;
  }

  /**
   * The deltas {@code B·A·x} (plus the node's DP noise) that round 2's answers decrypt to, one per
   * output row of {@code layout} (B's layout).
   */
  public double[] decryptDeltas(List<SwitchedAnswer> answers, CoefficientLayout layout) {
    requireAnswers(answers.size(), layout);
    double modulus =
        (double) parameters.moduli().get(0).value() * parameters.moduli().get(1).value();
    int rows = layout.rowsPerPlaintext();
    double[] out = new double[layout.rank()];
    for (int p = 0; p < answers.size(); p++) {
      SwitchedAnswer answer = answers.get(p);
      long[] values = AnswerDecryption.switched(answer, secretKey, layout.outputPositions(p));
      double unit = Math.scalb(modulus, -answer.bits()) / answer.scale();
      for (int b = 0; b < values.length; b++) {
        out[p * rows + b] = values[b] * unit;
      }
    }
    return out;
  }

  private static void requireAnswers(int count, CoefficientLayout layout) {
    if (count != layout.plaintextCount()) {
      throw new IllegalArgumentException(
          "expected " + layout.plaintextCount() + " answers, got " + count);
    }
  }

  /**
   * Encrypts {@code shares} ({@code [count][2]} residues in [0, q_l)) at coefficients 0..count-1,
   * the input layout of the next round, under the secret key at {@code scale} (the round-1
   * products' scale).
   */
  public Ciphertext encryptShares(long[][] shares, double scale) {
    int n = parameters.ringDegree();
    if (shares.length == 0 || shares.length > n) {
      throw new IllegalArgumentException("between 1 and " + n + " shares, got " + shares.length);
    }
    long[][] limbs = new long[2][n];
    for (int i = 0; i < shares.length; i++) {
      for (int l = 0; l < 2; l++) {
        long v = shares[i][l];
        if (v < 0 || v >= parameters.moduli().get(l).value()) {
          throw new IllegalArgumentException("share " + i + " is not a residue of prime " + l);
        }
        limbs[l][i] = v;
      }
    }
    RnsPoly poly = RnsPoly.wrap(limbs, false);
    poly.toNttInPlace(parameters.ntts());
    return Encryptor.encrypt(new Plaintext(poly, scale), secretKey, random);
  }

  /**
   * Reading more coefficients than this from one decryption inverts its NTT (O(N log N) once)
   * instead of extracting each one from the NTT form (O(N) each).
   */
  static final int EXTRACTIONS_BEFORE_INVERSE_NTT = 16;

  /**
   * The residues, {@code [outputs][2]}, of the output coefficients plaintext {@code p} of {@code
   * layout} holds, from the decryption of {@code ct}.
   */
  private long[][] residues(Ciphertext ct, CoefficientLayout layout, int p) {
    int rows = layout.rowsPerPlaintext();
    int count = Math.min(rows, layout.rank() - p * rows);
    long[][] out = new long[count][];
    if (count > EXTRACTIONS_BEFORE_INVERSE_NTT) {
      RnsPoly coefficients = Decryptor.decrypt(ct, secretKey, 2).poly();
      for (int b = 0; b < count; b++) {
        int position = layout.outputCoefficient(b);
        out[b] = new long[] {coefficients.limb(0)[position], coefficients.limb(1)[position]};
      }
      return out;
    }
    RnsPoly decrypted = Decryptor.decryptToNtt(ct, secretKey, 2).poly();
    for (int b = 0; b < count; b++) {
      CoefficientExtractor[] perLimb = extractors(layout.outputCoefficient(b));
      out[b] =
          new long[] {perLimb[0].extract(decrypted.limb(0)), perLimb[1].extract(decrypted.limb(1))};
    }
    return out;
  }

  private CoefficientExtractor[] extractors(int position) {
    return extractors.computeIfAbsent(
        position,
        k ->
            new CoefficientExtractor[] {
              new CoefficientExtractor(parameters.ntts().get(0), k),
              new CoefficientExtractor(parameters.ntts().get(1), k)
            });
  }
}
