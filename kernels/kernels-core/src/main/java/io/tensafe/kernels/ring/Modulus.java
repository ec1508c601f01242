package io.tensafe.kernels.ring;

import java.math.BigInteger;

/**
 * An RNS word modulus {@code q} with precomputed Barrett constants, and modular arithmetic on
 * unsigned 64-bit words built on {@link Math#unsignedMultiplyHigh}.
 *
 * <p>Invariants: {@code 2 <= q < 2^MAX_BITS}; the Barrett constant is {@code floor(2^128 / q)}
 * split into two words. Inputs documented as "reduced" must lie in {@code [0, q)}; methods named
 * {@code ...Lazy} return a value in a wider range that their Javadoc states on a {@code Range:}
 * line. Instances are immutable and thread-safe.
 *
 * @param value the modulus {@code q}
 * @param barrettHigh high word of {@code floor(2^128 / q)}
 * @param barrettLow low word of {@code floor(2^128 / q)}
 */
public record Modulus(long value, long barrettHigh, long barrettLow) {

  /** Largest supported bit length of {@code q}. RNS primes are at most 60 bits (ADR 0005). */
  public static final int MAX_BITS = 60;

  private static final BigInteger TWO_POW_64 = BigInteger.ONE.shiftLeft(64);
  private static final BigInteger TWO_POW_128 = BigInteger.ONE.shiftLeft(128);

  /** Validates the record's components; use {@link #of(long)} to build one. */
  public Modulus {
    if (value < 2 || 64 - Long.numberOfLeadingZeros(value) > MAX_BITS) {
      throw new IllegalArgumentException(
          "modulus must be in [2, 2^" + MAX_BITS + "), was " + Long.toUnsignedString(value));
    }
    BigInteger ratio = TWO_POW_128.divide(BigInteger.valueOf(value));
    if (ratio.shiftRight(64).longValue() != barrettHigh || ratio.longValue() != barrettLow) {
      throw new IllegalArgumentException("Barrett constants do not match modulus " + value);
    }
  }

  /** Builds the modulus {@code q} and its Barrett constants. */
  public static Modulus of(long q) {
    if (q < 2) {
      throw new IllegalArgumentException("modulus must be >= 2, was " + Long.toUnsignedString(q));
    }
    BigInteger ratio = TWO_POW_128.divide(BigInteger.valueOf(q));
    return new Modulus(q, ratio.shiftRight(64).longValue(), ratio.longValue());
  }

  /** Bit length of {@code q}. Range: [2, MAX_BITS]. */
  public int bitLength() {
    return 64 - Long.numberOfLeadingZeros(value);
  }

  /** log2 q, as a real number. Range: (1, MAX_BITS]. */
  public double log2() {
    return Math.log(value) / Math.log(2);
  }

  /** {@code (a + b) mod q} for reduced {@code a, b}. */
  public long add(long a, long b) {
    assert isReduced(a) && isReduced(b);
    long sum = a + b;
    return sum >= value ? sum - value : sum;
  }

  /** {@code (a - b) mod q} for reduced {@code a, b}. */
  public long sub(long a, long b) {
    assert isReduced(a) && isReduced(b);
    long diff = a - b;
    return diff < 0 ? diff + value : diff;
  }

  /** {@code -a mod q} for reduced {@code a}. */
  public long negate(long a) {
    assert isReduced(a);
    return a == 0 ? 0 : value - a;
  }

  /**
   * {@code (a * b) mod q} for reduced {@code a, b}, by Barrett reduction of the 128-bit product.
   */
  public long mul(long a, long b) {
    assert isReduced(a) && isReduced(b);
    return reduce128(Math.unsignedMultiplyHigh(a, b), a * b);
  }

  /**
   * Reduces the unsigned 128-bit value {@code high·2^64 + low} modulo {@code q}. Requires {@code
   * high < q}, which holds for any product of two reduced values.
   */
  public long reduce128(long high, long low) {
    assert Long.compareUnsigned(high, value) < 0;
    // Quotient estimate: the top word of (high·2^64 + low) · floor(2^128/q) / 2^128.
    long lowTimesRatioLowHigh = Math.unsignedMultiplyHigh(low, barrettLow);
    long crossA = low * barrettHigh;
    long crossAHigh = Math.unsignedMultiplyHigh(low, barrettHigh);
    long sum1 = crossA + lowTimesRatioLowHigh;
    long carry1 = Long.compareUnsigned(sum1, crossA) < 0 ? 1 : 0;
    long middleHigh = crossAHigh + carry1;
    long crossB = high * barrettLow;
    long crossBHigh = Math.unsignedMultiplyHigh(high, barrettLow);
    long sum2 = sum1 + crossB;
    long carry2 = Long.compareUnsigned(sum2, sum1) < 0 ? 1 : 0;
    long quotient = high * barrettHigh + middleHigh + crossBHigh + carry2;
    long remainder = low - quotient * value;
    // The estimate is short by at most one q.
    return Long.compareUnsigned(remainder, value) >= 0 ? remainder - value : remainder;
  }

  /** {@code x mod q} for any unsigned 64-bit {@code x}. */
  public long reduce(long x) {
    return reduce128(0, x);
  }

  /**
   * Shoup's precomputation for a fixed multiplicand {@code w}: {@code floor(w · 2^64 / q)}. Pair it
   * with {@link #mulShoup} or {@link #mulShoupLazy} when {@code w} is reused many times (NTT
   * twiddles, plaintext weights).
   */
  public long shoupPrecompute(long w) {
    assert isReduced(w);
    // With m = floor(2^128/q) = (barrettHigh, barrettLow), E = floor(w·m / 2^64) is the quotient or
    // one less (w < 2^64 loses less than 1); the low word of w·2^64 − E·q is the remainder, in [0,
    // 2q), which settles it. Exact, no division (a BigInteger division cost seconds per private
    // session at the 1.5B shape).
    long estimate = w * barrettHigh + Math.unsignedMultiplyHigh(w, barrettLow);
    long remainder = -estimate * value;
    return Long.compareUnsigned(remainder, value) >= 0 ? estimate + 1 : estimate;
  }

  /** {@link #shoupPrecompute} of every (reduced) value of {@code values}, in a new array. */
  public long[] shoupPrecomputeAll(long[] values) {
    long[] companions = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      companions[i] = shoupPrecompute(values[i]);
    }
    return companions;
  }

  /**
   * {@code a · w mod q}, left partly reduced.
   *
   * <p>Range: input {@code a} is any unsigned 64-bit value, {@code w} in [0, q); output in [0, 2q).
   */
  public long mulShoupLazy(long a, long w, long wShoup) {
    long quotient = Math.unsignedMultiplyHigh(a, wShoup);
    return a * w - quotient * value;
  }

  /** {@code a · w mod q} for reduced {@code w}; {@code a} may be any unsigned 64-bit value. */
  public long mulShoup(long a, long w, long wShoup) {
    long r = mulShoupLazy(a, w, wShoup);
    return r >= value ? r - value : r;
  }

  /** {@code base^exponent mod q} for reduced {@code base} and a non-negative exponent. */
  public long pow(long base, long exponent) {
    if (exponent < 0) {
      throw new IllegalArgumentException("exponent must be >= 0, was " + exponent);
    }
    long result = 1 % value;
    long b = base;
    long e = exponent;
    while (e != 0) {
      if ((e & 1) != 0) {
        result = mul(result, b);
      }
      b = mul(b, b);
      e >>>= 1;
    }
    return result;
  }

  /** True when {@code x} is in [0, q). */
  public boolean isReduced(long x) {
    return Long.compareUnsigned(x, value) < 0;
  }

  @Override
  public String toString() {
    return "Modulus[q=" + value + ", bits=" + bitLength() + "]";
  }

  static BigInteger unsigned(long x) {
    return x >= 0 ? BigInteger.valueOf(x) : BigInteger.valueOf(x).add(TWO_POW_64);
  }
}
