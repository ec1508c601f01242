package io.tensafe.kernels.helora;

import io.tensafe.kernels.ckks.CoefficientEncoder;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.CoefficientExtractor;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.Encryptor;
import io.tensafe.kernels.rlwe.KeyGenerator;
import io.tensafe.kernels.rlwe.ProductDecryption;
import io.tensafe.kernels.rlwe.SecretKey;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * HE-LoRA in hosted mode with COEFFICIENT packing ({@link CoefficientLayout}): the node generates a
 * secret key per operator (per session) and, for every input, encrypts it under that key (c1 from a
 * seed), multiplies the ciphertext by each prepared plaintext of A, decrypts each product and reads
 * the output coefficients. Hosted mode protects nothing from the node operator; it exists so the
 * cost of the encrypted computation is real and measured.
 *
 * <p>Scales. With q the single prime and {@code budget = log2 q - 2}, A is encoded with {@code Δa =
 * 2^(budget/2) / max_i ‖A_i‖₁} and each input with {@code Δx = 2^(budget/2) / ‖x‖∞}, so every
 * product coefficient satisfies {@code |Δx·Δa·⟨A_i, x⟩| ≤ 2^budget = q/4} whatever the data: the
 * decrypted value never wraps. Rounding and noise (|e| ≤ 20) then bound the absolute error by about
 * {@code 21 · ‖x‖∞ · ‖A_i‖₁ · 2^-(budget/2)}.
 *
 * <p>Thread-safe: {@link #apply} may be called concurrently; the key and prepared sites are
 * immutable and the CSPRNG is thread-safe.
 */
public final class HostedCoefficientOperator implements HeLoraOperator {
  private final Parameters parameters;
  private final SecretKey secretKey;
  private final SecureRandom random;
  private final double halfBudget;
  private final Map<Integer, List<CoefficientExtractor>> extractorsByDimension =
      new ConcurrentHashMap<>();

  /**
   * An operator with a fresh session key.
   *
   * @param parameters a set with exactly one prime (a depth-1 product needs no more)
   */
  public HostedCoefficientOperator(Parameters parameters, SecureRandom random) {
    if (parameters.limbCount() != 1) {
      throw new IllegalArgumentException(
          "hosted coefficient packing uses one prime; parameters have " + parameters.limbCount());
    }
    this.parameters = parameters;
    this.random = random;
    this.secretKey = KeyGenerator.secretKey(parameters, random);
    double logQ = parameters.moduli().getFirst().log2();
    this.halfBudget = Math.pow(2, (logQ - 2) / 2);
  }

  private record Site(
      CoefficientLayout layout,
      double scale,
      List<ShoupPlaintext> plaintexts,
      HostedCoefficientOperator owner)
      implements CoefficientSite {}

  @Override
  public PreparedSite prepare(double[][] a) {
    if (a.length == 0) {
      throw new IllegalArgumentException("A has no rows");
    }
    int d = a[0].length;
    CoefficientLayout layout = new CoefficientLayout(d, a.length, parameters.ringDegree());
    double maxRowL1 = RowChecks.maxRowL1(a);
    double scale = halfBudget / (maxRowL1 > 0 ? maxRowL1 : 1);
    int rows = layout.rowsPerPlaintext();
    List<ShoupPlaintext> plaintexts = new ArrayList<>(layout.plaintextCount());
    for (int p = 0; p < layout.plaintextCount(); p++) {
      double[] coefficients = new double[parameters.ringDegree()];
      for (int b = 0; b < rows && p * rows + b < a.length; b++) {
        double[] row = a[p * rows + b];
        for (int j = 0; j < d; j++) {
          coefficients[layout.weightCoefficient(b, j)] = row[j];
        }
      }
      plaintexts.add(
          new ShoupPlaintext(
              CoefficientEncoder.encode(coefficients, scale, parameters, 1), parameters.moduli()));
    }
    extractorsByDimension.computeIfAbsent(d, dim -> extractors(layout));
    return new Site(layout, scale, List.copyOf(plaintexts), this);
  }

  private List<CoefficientExtractor> extractors(CoefficientLayout layout) {
    NegacyclicNtt ntt = parameters.ntts().getFirst();
    List<CoefficientExtractor> list = new ArrayList<>();
    for (int b = 0; b < layout.rowsPerPlaintext(); b++) {
      list.add(new CoefficientExtractor(ntt, layout.outputCoefficient(b)));
    }
    return List.copyOf(list);
  }

  /** Extraction costs B·N multiplies per product; an inverse NTT about (N/2)·log2 N + N. */
  private static boolean extractionIsCheaper(CoefficientLayout layout) {
    int n = layout.ringDegree();
    long extraction = (long) layout.rowsPerPlaintext() * n;
    long inverse = (long) (n / 2) * Integer.numberOfTrailingZeros(n) + n;
    return extraction < inverse;
  }

  @Override
  public HeLoraResult apply(PreparedSite prepared, double[][] inputs) {
    if (!(prepared instanceof Site site) || site.owner() != this) {
      throw new IllegalArgumentException("site was prepared by another operator");
    }
    CoefficientLayout layout = site.layout();
    boolean extract = extractionIsCheaper(layout);
    List<CoefficientExtractor> extractors = extractorsByDimension.get(layout.dimension());
    long modulus = parameters.moduli().getFirst().value();
    double[][] outputs = new double[inputs.length][layout.rank()];
    long extractions = 0;
    long inverseNtts = 0;
    for (int t = 0; t < inputs.length; t++) {
      double[] x = inputs[t];
      double largest = RowChecks.maxAbs(x, layout.dimension(), t);
      double inputScale = halfBudget / (largest > 0 ? largest : 1);
      Ciphertext ct =
          Encryptor.encrypt(
              CoefficientEncoder.encode(x, inputScale, parameters, 1), secretKey, random);
      double productScale = inputScale * site.scale();
      int rows = layout.rowsPerPlaintext();
      long[] values = new long[parameters.ringDegree()];
      for (int p = 0; p < site.plaintexts().size(); p++) {
        ProductDecryption.multiplyPlainDecryptInto(ct, site.plaintexts().get(p), secretKey, values);
        if (!extract) {
          parameters.ntts().getFirst().inverseInPlace(values);
          inverseNtts++;
        }
        for (int b = 0; b < rows && p * rows + b < layout.rank(); b++) {
          long m;
          if (extract) {
            m = extractors.get(b).extract(values);
            extractions++;
          } else {
            m = values[layout.outputCoefficient(b)];
          }
          long centred = m > modulus / 2 ? m - modulus : m;
          outputs[t][p * rows + b] = centred / productScale;
        }
      }
    }
    long products = (long) inputs.length * site.plaintexts().size();
    return new HeLoraResult(
        outputs,
        new OperationCounts(
            inputs.length, products, products, inputs.length, inverseNtts, extractions));
  }

  /**
   * The smallest 128-bit secure parameters for inputs of {@code dimension} values: the smallest
   * ring with {@code N ≥ d} (at least 2^11) and one prime as wide as the HE Standard allows there,
   * capped at 60 bits: 54 bits at N = 2^11 ({@code ParameterPresets.HOSTED_LORA}), 60 bits above.
   * The encoding scale of the spec is unused: this operator derives its scales from the data.
   *
   * @param dimension d, in [1, 2^16]
   */
  public static Parameters parametersFor(int dimension) {
    if (dimension < 1 || dimension > 1 << Parameters.MAX_LOG_N) {
      throw new IllegalArgumentException("dimension must be in [1, 65536], was " + dimension);
    }
    return HostedParameters.forLogN(
        Math.max(Parameters.MIN_LOG_N, 32 - Integer.numberOfLeadingZeros(dimension - 1)));
  }

  /** The parameters this operator runs with. */
  public Parameters parameters() {
    return parameters;
  }
}
