package io.tensafe.kernels.helora;

import io.tensafe.kernels.ckks.CoefficientEncoder;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Samplers;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Packs a matrix for private mode's rounds ({@link SharedLoraNode}) in COEFFICIENT layout, at a
 * scale the caller fixes from public bounds, and computes each plaintext's flooding bound ({@link
 * #floodBound}): the error term {@code e·P} an honest client's encryption error e (independent,
 * zero-mean coefficients with |e| ≤ 20) adds at an output coefficient is below it except with
 * probability 2^-64, so flooding uniform in [-F, F] puts each output within statistical distance
 * 2^-40 + 2^-64 of one computed without it.
 *
 * <p>Assumes a semi-honest client: a client that encrypts with a larger error than the sampler's
 * bound could see more than 2^-40 of it (ADR 0017).
 */
public final class PrivateWeights {
  static final int FLOODING_BITS = 40;

  private final Parameters parameters;

  /** A packer for the ring of {@code parameters} (two primes). */
  public PrivateWeights(Parameters parameters) {
    this.parameters = parameters;
  }

  /**
   * A packed matrix.
   *
   * @param norms per plaintext, {@code {‖P‖₁, Σ P_j²}} of its integer coefficients: what the
   *     flooding bound of a sum over chunks needs ({@link #floodBound(List, int)})
   */
  public record Site(
      CoefficientLayout layout,
      List<ShoupPlaintext> plaintexts,
      List<double[]> norms,
      PrivateWeights owner)
      implements CoefficientSite {}

  /**
   * The flooding bound of plaintext {@code p} summed over the chunks {@code sites} (one client
   * error per chunk ciphertext, all independent): {@link #floodBound(double, double)} of the summed
   * L1 norms and the root of the summed squares.
   */
  public static BigInteger floodBound(List<Site> sites, int p) {
    double l1 = 0;
    double squares = 0;
    for (Site s : sites) {
      l1 += s.norms().get(p)[0];
      squares += s.norms().get(p)[1];
    }
    return floodBound(l1, Math.sqrt(squares));
  }

  /**
   * Packs the rows of a matrix at a scale the caller chose (with {@code scale·max_i ‖row_i‖₁ ≤
   * 2^30}), for protocols whose scales must not depend on the data ({@link SharedLoraNode}).
   */
  Site prepare(double[][] a, double scale) {
    if (a.length == 0) {
      throw new IllegalArgumentException("the matrix has no rows");
    }
    CoefficientLayout layout =
        new CoefficientLayout(a[0].length, a.length, parameters.ringDegree());
    int rows = layout.rowsPerPlaintext();
    List<ShoupPlaintext> plaintexts = new ArrayList<>();
    List<double[]> norms = new ArrayList<>();
    for (int p = 0; p < layout.plaintextCount(); p++) {
      double[] coefficients = new double[parameters.ringDegree()];
      double l1 = 0;
      double squares = 0;
      for (int b = 0; b < rows && p * rows + b < a.length; b++) {
        double[] row = a[p * rows + b];
        for (int j = 0; j < row.length; j++) {
          coefficients[layout.weightCoefficient(b, j)] = row[j];
          double w = Math.rint(row[j] * scale);
          l1 += Math.abs(w);
          squares += w * w;
        }
      }
      plaintexts.add(
          new ShoupPlaintext(
              CoefficientEncoder.encode(coefficients, scale, parameters, 2), parameters.moduli()));
      norms.add(new double[] {l1, squares});
    }
    return new Site(layout, List.copyOf(plaintexts), List.copyOf(norms), this);
  }

  /**
   * Hoeffding's bound on the error term {@code e·P} at one coefficient: a sum of independent,
   * zero-mean terms {@code e_i·P_j} with {@code |e_i| ≤ 20}, so {@code Pr[|e·P| > 20·‖P‖₂·√(2·ln
   * 2^65)] ≤ 2^-64}; never above the sure bound {@code 20·‖P‖₁}.
   */
  static final double HOEFFDING_FACTOR = Math.sqrt(2 * 65 * Math.log(2));

  /**
   * F = 2^40 · min(20·‖P‖₁, 20·‖P‖₂·{@link #HOEFFDING_FACTOR}), rounded up: flooding in [-F, F]
   * puts an output within statistical distance 2^-40 + 2^-64 of one without the error term.
   */
  static BigInteger floodBound(double l1, double l2) {
    double errorBound = Samplers.ERROR_BOUND * Math.min(l1, l2 * HOEFFDING_FACTOR);
    return BigInteger.valueOf((long) Math.ceil(errorBound) + 1).shiftLeft(FLOODING_BITS);
  }
}
