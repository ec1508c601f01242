package io.tensafe.kernels.helora;

import io.tensafe.kernels.ckks.SlotEncoder;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.Encryptor;
import io.tensafe.kernels.rlwe.KeyGenerator;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.ProductDecryption;
import io.tensafe.kernels.rlwe.SecretKey;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * HE-LoRA in hosted mode with SLOT packing, the public prototype's layout, kept as a baseline: x is
 * replicated into {@code c = ⌊(N/2)/d⌋} segments of d slots, each plaintext holds c rows of A in
 * the same segments, and after ct×pt and decryption the node decodes all slots (an FFT) and sums
 * each segment. It needs N ≥ 2d where COEFFICIENT packing needs N ≥ d, and a full decode per
 * product.
 *
 * <p>Hosted only: a client decrypting slot-packed products would see every {@code A_ij·x_j}, which
 * gives away A in one query, so there is no private mode for this packing.
 *
 * <p>Scales: {@code Δx = 2^(budget/2)/‖x‖∞}, {@code Δa = 2^(budget/2)/max|A_ij|} with {@code budget
 * = log2 q - 3}, so every slot product and every coefficient of the product stays below q/8.
 */
public final class HostedSlotOperator implements HeLoraOperator {
  private final Parameters parameters;
  private final SecretKey secretKey;
  private final SecureRandom random;
  private final double halfBudget;

  /** Smallest ring degree (log2) slot packing uses; see {@link #parametersFor}. */
  static final int MIN_LOG_N = 12;

  /**
   * @param parameters a set with exactly one prime
   */
  public HostedSlotOperator(Parameters parameters, SecureRandom random) {
    if (parameters.limbCount() != 1) {
      throw new IllegalArgumentException(
          "hosted slot packing uses one prime; parameters have " + parameters.limbCount());
    }
    this.parameters = parameters;
    this.random = random;
    this.secretKey = KeyGenerator.secretKey(parameters, random);
    double logQ = parameters.moduli().getFirst().log2();
    this.halfBudget = Math.pow(2, (logQ - 3) / 2);
  }

  /**
   * The smallest secure one-prime set with N/2 ≥ d and N ≥ 2^12: N = 2^12 for d ≤ 2048, else the
   * next ring. Not N = 2^11 for d ≤ 1024: the HE Standard caps its modulus at 54 bits, and with
   * that budget slot packing missed the 1e-4 relative error on about 1% of tokens at d = 896, r = 8
   * (worst 1.2e-4 over 300 tokens); the 60-bit prime of N = 2^12 gives it 6 bits more.
   */
  public static Parameters parametersFor(int dimension) {
    if (dimension < 1 || dimension > 1 << (Parameters.MAX_LOG_N - 1)) {
      throw new IllegalArgumentException("dimension must be in [1, 32768], was " + dimension);
    }
    return HostedParameters.forLogN(
        Math.max(MIN_LOG_N, 33 - Integer.numberOfLeadingZeros(dimension - 1)));
  }

  private record Site(
      int dimension,
      int rank,
      int rowsPerPlaintext,
      double scale,
      List<ShoupPlaintext> plaintexts,
      HostedSlotOperator owner)
      implements PreparedSite {}

  @Override
  public PreparedSite prepare(double[][] a) {
    if (a.length == 0) {
      throw new IllegalArgumentException("A has no rows");
    }
    int d = a[0].length;
    RowChecks.maxRowL1(a); // shape and finiteness
    int slots = SlotEncoder.slotCount(parameters);
    if (d > slots) {
      throw new IllegalArgumentException(
          "dimension " + d + " exceeds the " + slots + " slots of this ring");
    }
    double maxEntry = 0;
    for (double[] row : a) {
      for (double v : row) {
        maxEntry = Math.max(maxEntry, Math.abs(v));
      }
    }
    double scale = halfBudget / (maxEntry > 0 ? maxEntry : 1);
    int rows = slots / d;
    List<ShoupPlaintext> plaintexts = new ArrayList<>();
    for (int p = 0; p * rows < a.length; p++) {
      double[] values = new double[rows * d];
      for (int b = 0; b < rows && p * rows + b < a.length; b++) {
        System.arraycopy(a[p * rows + b], 0, values, b * d, d);
      }
      plaintexts.add(
          new ShoupPlaintext(
              SlotEncoder.encode(values, scale, parameters, 1), parameters.moduli()));
    }
    return new Site(d, a.length, rows, scale, List.copyOf(plaintexts), this);
  }

  @Override
  public HeLoraResult apply(PreparedSite prepared, double[][] inputs) {
    if (!(prepared instanceof Site site) || site.owner() != this) {
      throw new IllegalArgumentException("site was prepared by another operator");
    }
    int d = site.dimension();
    int rows = site.rowsPerPlaintext();
    double[][] outputs = new double[inputs.length][site.rank()];
    for (int t = 0; t < inputs.length; t++) {
      double largest = RowChecks.maxAbs(inputs[t], d, t);
      double inputScale = halfBudget / (largest > 0 ? largest : 1);
      double[] replicated = new double[rows * d];
      for (int b = 0; b < rows; b++) {
        System.arraycopy(inputs[t], 0, replicated, b * d, d);
      }
      Ciphertext ct =
          Encryptor.encrypt(
              SlotEncoder.encode(replicated, inputScale, parameters, 1), secretKey, random);
      for (int p = 0; p < site.plaintexts().size(); p++) {
        long[] values = new long[parameters.ringDegree()];
        ProductDecryption.multiplyPlainDecryptInto(ct, site.plaintexts().get(p), secretKey, values);
        RnsPoly poly = RnsPoly.wrap(new long[][] {values}, true);
        poly.toCoefficientsInPlace(parameters.ntts());
        double[] slots =
            SlotEncoder.decode(new Plaintext(poly, inputScale * site.scale()), parameters);
        for (int b = 0; b < rows && p * rows + b < site.rank(); b++) {
          double sum = 0;
          for (int j = 0; j < d; j++) {
            sum += slots[b * d + j];
          }
          outputs[t][p * rows + b] = sum;
        }
      }
    }
    long products = (long) inputs.length * site.plaintexts().size();
    return new HeLoraResult(
        outputs,
        new OperationCounts(inputs.length, products, products, inputs.length, products, 0));
  }
}
