package io.tensafe.kernels.ckks;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.RnsPoly;
import io.tensafe.kernels.rlwe.Plaintext;
import java.math.BigInteger;
import java.util.List;

/**
 * Encodes real vectors as polynomial coefficients: {@code m_i = round(v_i · Δ)}.
 *
 * <p>Precision: encoding rounds each value by at most {@code 0.5/Δ} (values of magnitude 2^53 and
 * above are already integers as doubles and are reduced exactly); decoding is exact on the integers
 * it is given (CRT over all limbs it receives, centred), so a round trip without encryption returns
 * every value within {@code 0.5/Δ}, up to double rounding of the result. Limits: {@code |v_i · Δ|}
 * below a quarter of the product of the limbs encoded into, and on decoding the true integer must
 * lie within half the product of the limbs present.
 */
public final class CoefficientEncoder {
  /** Scaled values below this magnitude are rounded in a signed 64-bit word. */
  private static final double LONG_PATH_LIMIT = 0x1p62;

  private CoefficientEncoder() {}

  /**
   * The plaintext, in NTT form over the first {@code limbs} primes, of {@code values} placed in
   * coefficients 0..values.length-1 (the rest zero).
   */
  public static Plaintext encode(double[] values, double scale, Parameters p, int limbs) {
    RnsPoly poly = encodeCoefficients(values, scale, p, limbs);
    poly.toNttInPlace(p.ntts().subList(0, limbs));
    return new Plaintext(poly, scale);
  }

  /**
   * The coefficient-form polynomial over the first {@code limbs} primes of {@code values} placed in
   * coefficients 0..values.length-1 (the rest zero), residues in [0, q): {@link #encode} before its
   * transform.
   */
  public static RnsPoly encodeCoefficients(double[] values, double scale, Parameters p, int limbs) {
    int n = p.ringDegree();
    if (values.length > n) {
      throw new IllegalArgumentException(
          values.length + " values do not fit " + n + " coefficients");
    }
    if (limbs < 1 || limbs > p.limbCount()) {
      throw new IllegalArgumentException(
          "limbs must be in [1, " + p.limbCount() + "], was " + limbs);
    }
    List<Modulus> moduli = p.moduli().subList(0, limbs);
    double logQ = 0;
    for (Modulus q : moduli) {
      logQ += q.log2();
    }
    double limit = Math.pow(2, logQ - 2);
    long[][] residues = new long[limbs][n];
    for (int i = 0; i < values.length; i++) {
      double v = values[i] * scale;
      if (!(Math.abs(v) < limit)) {
        throw new IllegalArgumentException(
            "value "
                + values[i]
                + " at index "
                + i
                + " times scale "
                + scale
                + " is not below 2^"
                + (int) Math.floor(logQ - 2)
                + ", a quarter of the modulus");
      }
      for (int l = 0; l < limbs; l++) {
        residues[l][i] = residue(v, moduli.get(l));
      }
    }
    return RnsPoly.wrap(residues, false);
  }

  /** {@code round(v) mod q}, exactly, for any finite {@code v}. */
  private static long residue(double v, Modulus q) {
    long r;
    if (Math.abs(v) < LONG_PATH_LIMIT) {
      r = Math.round(v);
      if (r >= q.value() || r <= -q.value()) {
        r %= q.value(); // only values beyond ±q pay for a division
      }
    } else {
      // |v| >= 2^62: v = m · 2^e exactly, with m a 53-bit integer and e >= 10.
      int e = Math.getExponent(v) - 52;
      long m = (long) Math.scalb(v, -e);
      long mod = q.mul(q.reduce(Math.abs(m)), q.pow(2 % q.value(), e));
      r = m < 0 ? -mod : mod;
    }
    return r < 0 ? r + q.value() : r;
  }

  /** Decodes every coefficient of a coefficient-form plaintext to {@code m_i / Δ}. */
  public static double[] decode(Plaintext plaintext, Parameters p) {
    RnsPoly poly = plaintext.poly();
    if (poly.isNtt()) {
      throw new IllegalArgumentException(
          "decode needs a coefficient-form plaintext (decrypt gives one)");
    }
    int n = poly.degree();
    double[] values = new double[n];
    if (poly.limbCount() == 1) {
      long q = p.moduli().getFirst().value();
      long[] limb = poly.limb(0);
      for (int i = 0; i < n; i++) {
        long centred = limb[i] > q / 2 ? limb[i] - q : limb[i];
        values[i] = centred / plaintext.scale();
      }
      return values;
    }
    List<Modulus> moduli = p.moduli().subList(0, poly.limbCount());
    BigInteger product = BigInteger.ONE;
    for (Modulus q : moduli) {
      product = product.multiply(BigInteger.valueOf(q.value()));
    }
    BigInteger half = product.shiftRight(1);
    BigInteger[] basis = new BigInteger[moduli.size()];
    for (int l = 0; l < moduli.size(); l++) {
      BigInteger q = BigInteger.valueOf(moduli.get(l).value());
      BigInteger rest = product.divide(q);
      basis[l] = rest.multiply(rest.modInverse(q));
    }
    for (int i = 0; i < n; i++) {
      BigInteger x = BigInteger.ZERO;
      for (int l = 0; l < moduli.size(); l++) {
        x = x.add(basis[l].multiply(BigInteger.valueOf(poly.limb(l)[i])));
      }
      x = x.mod(product);
      if (x.compareTo(half) > 0) {
        x = x.subtract(product);
      }
      values[i] = x.doubleValue() / plaintext.scale();
    }
    return values;
  }
}
