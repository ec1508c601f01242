package io.tensafe.kernels.helora;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import io.tensafe.kernels.rlwe.Plaintext;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Packs integer matrices for private mode's rounds ({@link SharedLoraNode}) in COEFFICIENT layout,
 * and computes each plaintext's flooding bound ({@link #floodBound}): the error term {@code e·P} an
 * honest client's encryption error e (independent, zero-mean coefficients with |e| ≤ 20) adds at an
 * output coefficient is below it except with probability 2^-64, so flooding uniform in [-F, F] puts
 * each output within statistical distance 2^-40 + 2^-64 of one computed without it.
 *
 * <p>Matrices are integers (the weights already rounded at the session's public scale, {@link
 * #quantize}), so a product's value is exact and a check row {@code hᵀ·Â} is exactly {@code h}
 * applied to the rows' own values (ADR 0025). Assumes a client whose round-two error is the
 * sampler's: a larger one is a substituted share, which round two's check turns into noise.
 */
public final class PrivateWeights {
  static final int FLOODING_BITS = 40;

  /** The largest integer weight: products of two fit a long with the check terms. */
  static final long MAX_WEIGHT = 1L << 52;

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
   * {@code round(m·scale)} entry by entry.
   *
   * @throws IllegalArgumentException if an entry is not finite or rounds above {@link #MAX_WEIGHT}
   */
  static long[][] quantize(double[][] m, double scale) {
    long[][] out = new long[m.length][];
    for (int i = 0; i < m.length; i++) {
      out[i] = new long[m[i].length];
      for (int j = 0; j < m[i].length; j++) {
        double v = Math.rint(m[i][j] * scale);
        if (!(Math.abs(v) <= MAX_WEIGHT)) {
          throw new IllegalArgumentException("weight " + m[i][j] + " does not fit the scale");
        }
        out[i][j] = (long) v;
      }
    }
    return out;
  }

  /**
   * The flooding bound of plaintext {@code p} summed over the chunks {@code norms} (one client
   * error per chunk ciphertext, all independent): {@link #floodBound(double, double)} of the summed
   * L1 norms and the root of the summed squares.
   */
  public static BigInteger floodBound(List<List<double[]>> norms, int p) {
    double l1 = 0;
    double squares = 0;
    for (List<double[]> chunk : norms) {
      l1 += chunk.get(p)[0];
      squares += chunk.get(p)[1];
    }
    return floodBound(l1, Math.sqrt(squares));
  }

  /**
   * Packs the rows of an integer matrix (every row as wide as the first), the weights rounded at
   * {@code scale} (the plaintexts' scale: products carry it).
   */
  Site prepare(long[][] rows, double scale) {
    if (rows.length == 0) {
      throw new IllegalArgumentException("the matrix has no rows");
    }
    CoefficientLayout layout =
        new CoefficientLayout(rows[0].length, rows.length, parameters.ringDegree());
    List<ShoupPlaintext> plaintexts = new ArrayList<>();
    for (int p = 0; p < layout.plaintextCount(); p++) {
      plaintexts.add(plaintext(rows, layout, p, scale));
    }
    return new Site(layout, List.copyOf(plaintexts), norms(rows, layout), this);
  }

  /**
   * Plaintext {@code p} of {@code layout} holding its rows of {@code rows} (rows beyond the matrix
   * zero): the integers themselves, labelled with the {@code scale} they were rounded at.
   */
  ShoupPlaintext plaintext(long[][] rows, CoefficientLayout layout, int p, double scale) {
    long[] coefficients = new long[parameters.ringDegree()];
    int per = layout.rowsPerPlaintext();
    for (int b = 0; b < per && p * per + b < rows.length; b++) {
      long[] row = rows[p * per + b];
      for (int j = 0; j < row.length; j++) {
        coefficients[layout.weightCoefficient(b, j)] = row[j];
      }
    }
    return new ShoupPlaintext(new Plaintext(ntt(coefficients), scale), parameters.moduli());
  }

  /** The NTT form over both primes of a polynomial of signed integer coefficients. */
  RnsPoly ntt(long[] coefficients) {
    RnsPoly poly = RnsPoly.fromSigned(coefficients, parameters.moduli());
    poly.toNttInPlace(parameters.ntts());
    return poly;
  }

  /** Per plaintext of {@code layout}, {@code {‖P‖₁, Σ P_j²}} of its rows of {@code rows}. */
  static List<double[]> norms(long[][] rows, CoefficientLayout layout) {
    List<double[]> out = new ArrayList<>();
    int per = layout.rowsPerPlaintext();
    for (int p = 0; p < layout.plaintextCount(); p++) {
      double l1 = 0;
      double squares = 0;
      for (int b = 0; b < per && p * per + b < rows.length; b++) {
        for (long w : rows[p * per + b]) {
          l1 += Math.abs((double) w);
          squares += (double) w * w;
        }
      }
      out.add(new double[] {l1, squares});
    }
    return List.copyOf(out);
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
