package io.tensafe.kernels.ring;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Modular arithmetic for primes below {@code 2^50} on SIMD lanes of doubles with fused
 * multiply-add, after van der Hoeven, Lecerf and Quintin, "Modular SIMD arithmetic in Mathemagix"
 * (2014). Residues are integers held exactly in doubles, in a signed range; AVX2 multiplies four
 * such lanes in one instruction where it has no 64×64-bit integer product at all (ADR 0033).
 *
 * <p>The product {@code y·w mod q} for a fixed {@code w} (Shoup's idea in floating point): with
 * {@code w} signed in {@code [-q/2, q/2]} and {@code wQuotient = fl(w/q)}, {@code h = fl(y·w)} and
 * {@code l = fma(y, w, -h)} give {@code y·w = h + l} exactly; {@code c = round(y·wQuotient)} (one
 * fma against {@link #ROUNDING}) is within {@code 1/2 + |y·w/q|·2^-53} of {@code y·w/q}; {@code
 * fma(-c, q, h) + l} is then {@code y·w − c·q} exactly, every intermediate an integer below 2^53.
 *
 * <p>Invariants, for {@code 5 ≤ q < 2^50} ({@link #MAX_BITS}; every NTT prime is at least 5):
 * {@link #mulMod} takes any integer {@code |y| ≤ 4q} and returns a value congruent to {@code y·w}
 * with {@code |r| ≤ 3q/4} (the proof's bound; a search found at most 0.62q); {@link #reduce} takes
 * any integer {@code |x| < 2^53} and returns {@code |r| ≤ q/2 + 1}. Only loaded when the {@code
 * jdk.incubator.vector} module is (see {@link NttImplementation}).
 */
public final class FmaLanes {
  /** Largest prime bit length this arithmetic is exact for. */
  public static final int MAX_BITS = 50;

  /** Doubles per vector on this machine; the same count as {@link LaneMath#SPECIES}'s longs. */
  public static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;

  /**
   * {@code 1.5·2^52}: {@code fl(x + ROUNDING) − ROUNDING} is x rounded to an integer, |x| < 2^51.
   */
  public static final double ROUNDING = 0x1.8p52;

  /** {@code 2^52} and its bit pattern: an integer {@code 0 ≤ v < 2^52} has the bits of 2^52 + v. */
  private static final double TWO_POW_52 = 0x1p52;

  private static final long TWO_POW_52_BITS = 0x4330_0000_0000_0000L;

  private FmaLanes() {}

  /** Lanes of one vector on this machine. */
  public static int lanes() {
    return SPECIES.length();
  }

  /** {@code v} in [0, q) as the signed representative in [-q/2, q/2], a double. */
  public static double signed(long v, long q) {
    return v > q / 2 ? (double) (v - q) : (double) v;
  }

  /** The signed forms of {@code values} (each in [0, q)), index for index. */
  public static double[] signed(long[] values, long q) {
    double[] out = new double[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = signed(values[i], q);
    }
    return out;
  }

  /** The quotients {@code fl(w/q)} of signed constants, for {@link #mulMod}. */
  public static double[] quotients(double[] signed, long q) {
    double[] out = new double[signed.length];
    for (int i = 0; i < signed.length; i++) {
      out[i] = signed[i] / q;
    }
    return out;
  }

  /**
   * {@code y·w mod q} up to sign: congruent, {@code |r| < 3q/4}, for integers {@code |y| ≤ 4q},
   * {@code |w| ≤ q/2} and {@code wQuotient = fl(w/q)}.
   */
  public static DoubleVector mulMod(
      DoubleVector y,
      DoubleVector w,
      DoubleVector wQuotient,
      DoubleVector q,
      DoubleVector rounding) {
    return mulMod(y, w, w.neg(), wQuotient, q, rounding);
  }

  /**
   * As {@link #mulMod(DoubleVector, DoubleVector, DoubleVector, DoubleVector, DoubleVector)}, given
   * {@code negatedW = −w} (a broadcast or table read outside the loop), so that no lane is negated
   * in it: {@code −h = y·(−w)}, {@code l = fma(y, w, −h)}, {@code r = l − fma(c, q, −h)}.
   */
  public static DoubleVector mulMod(
      DoubleVector y,
      DoubleVector w,
      DoubleVector negatedW,
      DoubleVector wQuotient,
      DoubleVector q,
      DoubleVector rounding) {
    DoubleVector negatedHigh = y.mul(negatedW);
    DoubleVector low = y.fma(w, negatedHigh);
    DoubleVector quotient = y.fma(wQuotient, rounding).sub(rounding);
    return low.sub(quotient.fma(q, negatedHigh));
  }

  /**
   * {@code x mod q}, signed: congruent, {@code |r| ≤ q/2 + 1}, for integers {@code |x| < 2^53} and
   * {@code q ≥ 5} (the quotient's error is below 2^-50, so {@code fma(-c, q, x)} is the exact small
   * remainder).
   */
  public static DoubleVector reduce(
      DoubleVector x, DoubleVector q, DoubleVector qInverse, DoubleVector rounding) {
    DoubleVector quotient = x.fma(qInverse, rounding).sub(rounding);
    return quotient.neg().fma(q, x);
  }

  /** A signed residue {@code |x| < q} as its representative in [0, q). */
  public static DoubleVector nonNegative(DoubleVector x, DoubleVector q) {
    return x.add(q, x.compare(VectorOperators.LT, 0.0));
  }

  /** Words in [0, 2^52) as exact doubles. */
  public static DoubleVector fromWords(LongVector words) {
    return words.or(TWO_POW_52_BITS).reinterpretAsDoubles().sub(TWO_POW_52);
  }

  /** Integer doubles in [0, 2^52) as words. */
  public static LongVector toWords(DoubleVector x) {
    return x.add(TWO_POW_52).reinterpretAsLongs().sub(TWO_POW_52_BITS);
  }

  /** {@link #reduce} for one value: congruent, {@code |r| ≤ q/2 + 1}, for {@code |x| < 2^53}. */
  public static double reduce(double x, double q, double qInverse) {
    double quotient = Math.fma(x, qInverse, ROUNDING) - ROUNDING;
    return Math.fma(-quotient, q, x);
  }

  /** An integer {@code |x| < 2^53} as the word in [0, q) congruent to it. */
  public static long toWord(double x, long q) {
    double r = reduce(x, q, 1.0 / q);
    return (long) (r < 0 ? r + q : r);
  }
}
