package io.tensafe.kernels.helora;

import io.tensafe.kernels.ckks.CoefficientEncoder;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.ring.Samplers;
import io.tensafe.kernels.rlwe.Ciphertext;
import io.tensafe.kernels.rlwe.MaskedProduct;
import io.tensafe.kernels.rlwe.PublicKey;
import io.tensafe.kernels.rlwe.ShoupPlaintext;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The node's side of private-mode HE-LoRA with COEFFICIENT packing. It holds only the client's
 * public key and ciphertexts. For each plaintext {@code P} of A it returns {@code ct·P +
 * Enc_pk(M)}: the public-key encryption of zero re-randomises {@code c1} (so the client cannot
 * divide its own {@code c1} out of the result to learn {@code P}), and the mask polynomial {@code
 * M} is
 *
 * <ul>
 *   <li>uniform modulo Q on every coefficient that is not an output, so those decrypt to values
 *       independent of A and of x;
 *   <li>on each output coefficient, flooding noise uniform in [-F, F] with {@code F = 2^40 ·
 *       min(20·‖P‖₁, 20·‖P‖₂·√(130·ln 2))} ({@link #floodBound}). The only A-dependent error term
 *       is {@code e·P} (e the client's encryption error, independent zero-mean coefficients with
 *       |e| ≤ 20 for an honest client), below that bound except with probability 2^-64, so each
 *       output is within statistical distance 2^-40 + 2^-64 of one computed without it.
 * </ul>
 *
 * <p>Assumes a semi-honest client: a client that encrypts with a larger error than the sampler's
 * bound could see more than 2^-40 of it. The client still learns {@code A·x} for the x it chose;
 * limiting what that reveals is the job of the DP layer.
 */
public final class PrivateNodeOperator {
  static final int FLOODING_BITS = 40;

  private final Parameters parameters;
  private final PublicKey clientKey;
  private final SecureRandom random;

  public PrivateNodeOperator(PublicKey clientKey, SecureRandom random) {
    this.parameters = clientKey.parameters();
    this.clientKey = clientKey;
    this.random = random;
  }

  public record Site(
      CoefficientLayout layout,
      List<ShoupPlaintext> plaintexts,
      List<BigInteger> floodBounds,
      PrivateNodeOperator owner)
      implements CoefficientSite {}

  /** Packs A; Δa is chosen so that {@code Δa·max_i ‖A_i‖₁ = 2^30}. */
  public PreparedSite prepare(double[][] a) {
    if (a.length == 0) {
      throw new IllegalArgumentException("A has no rows");
    }
    double maxRowL1 = RowChecks.maxRowL1(a);
    return prepare(a, Math.pow(2, 30) / (maxRowL1 > 0 ? maxRowL1 : 1));
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
    List<BigInteger> floodBounds = new ArrayList<>();
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
      floodBounds.add(floodBound(l1, Math.sqrt(squares)));
    }
    return new Site(layout, List.copyOf(plaintexts), List.copyOf(floodBounds), this);
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

  /** The masked products {@code ct·P_p + Enc_pk(M_p)}, one per plaintext of the site. */
  public List<Ciphertext> apply(PreparedSite prepared, Ciphertext input) {
    return apply(prepared, input, null);
  }

  /**
   * As {@link #apply(PreparedSite, Ciphertext)}, with {@code outputAdditions[i]} (in the product's
   * integer units; null: none) added to output i's mask: the caller's DP noise.
   */
  List<Ciphertext> apply(PreparedSite prepared, Ciphertext input, BigInteger[] outputAdditions) {
    if (!(prepared instanceof Site site) || site.owner() != this) {
      throw new IllegalArgumentException("site was prepared by another operator");
    }
    if (!input.parameters().equals(parameters) || input.limbCount() != 2) {
      throw new IllegalArgumentException("input ciphertext does not match the client's parameters");
    }
    List<Ciphertext> outputs = new ArrayList<>(site.plaintexts().size());
    for (int p = 0; p < site.plaintexts().size(); p++) {
      // M joins e0 in coefficient form, so it costs no transform of its own.
      outputs.add(
          MaskedProduct.compute(
              input,
              site.plaintexts().get(p),
              maskPolynomial(site, p, outputAdditions),
              clientKey,
              random));
    }
    return outputs;
  }

  /**
   * Uniform residues everywhere, then flooding noise in [-F, F] (plus the caller's addition) on
   * this plaintext's outputs.
   */
  private RnsPoly maskPolynomial(Site site, int plaintext, BigInteger[] additions) {
    byte[] seed = new byte[Samplers.SEED_BYTES];
    random.nextBytes(seed);
    // A uniform polynomial is uniform in either domain; take the values as coefficients.
    RnsPoly uniform =
        Samplers.uniformFromSeed(seed, 0, parameters.moduli(), parameters.ringDegree());
    long[][] limbs = {uniform.limb(0), uniform.limb(1)};
    RnsPoly mask = RnsPoly.wrap(limbs, false);
    CoefficientLayout layout = site.layout();
    BigInteger bound = site.floodBounds().get(plaintext);
    BigInteger width = bound.shiftLeft(1).add(BigInteger.ONE);
    int rows = layout.rowsPerPlaintext();
    for (int b = 0; b < rows && plaintext * rows + b < layout.rank(); b++) {
      BigInteger noise = uniformBelow(width).subtract(bound);
      if (additions != null) {
        noise = noise.add(additions[plaintext * rows + b]);
      }
      int position = layout.outputCoefficient(b);
      for (int l = 0; l < 2; l++) {
        Modulus q = parameters.moduli().get(l);
        limbs[l][position] = noise.mod(BigInteger.valueOf(q.value())).longValue();
      }
    }
    return mask;
  }

  private BigInteger uniformBelow(BigInteger bound) {
    BigInteger value;
    do {
      value = new BigInteger(bound.bitLength(), random);
    } while (value.compareTo(bound) >= 0);
    return value;
  }
}
