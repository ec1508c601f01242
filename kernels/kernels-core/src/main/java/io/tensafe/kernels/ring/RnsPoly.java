package io.tensafe.kernels.ring;

import java.util.Arrays;
import java.util.List;

/**
 * A polynomial of {@code Z_Q[X]/(X^N + 1)} in RNS form: one array of N residues per prime.
 *
 * <p>Invariants: {@code limbs.length} is the number of primes it is taken modulo (the first ones of
 * its parameter set); every limb has N entries in [0, q_i); {@link #isNtt()} says whether the limbs
 * hold NTT values (bit-reversed evaluations) or coefficients. A polynomial is a mutable buffer
 * owned by whoever created it; methods ending in {@code Into} or {@code InPlace} write into {@code
 * this}, and nothing else keeps a reference to its arrays.
 */
public final class RnsPoly {
  private final long[][] limbs;
  private boolean ntt;

  private RnsPoly(long[][] limbs, boolean ntt) {
    this.limbs = limbs;
    this.ntt = ntt;
  }

  /** The zero polynomial with {@code limbCount} limbs of {@code degree} coefficients. */
  public static RnsPoly zero(int limbCount, int degree, boolean ntt) {
    return new RnsPoly(new long[limbCount][degree], ntt);
  }

  /** Wraps {@code limbs} without copying; the caller hands over ownership. */
  public static RnsPoly wrap(long[][] limbs, boolean ntt) {
    return new RnsPoly(limbs, ntt);
  }

  /** Reduces small signed integers {@code values} into every limb, in coefficient form. */
  public static RnsPoly fromSigned(long[] values, List<Modulus> moduli) {
    long[][] limbs = new long[moduli.size()][values.length];
    for (int l = 0; l < moduli.size(); l++) {
      long q = moduli.get(l).value();
      for (int i = 0; i < values.length; i++) {
        long v = values[i];
        // Values below the prime in size (the common case, zeros above all) need no division.
        limbs[l][i] = v >= 0 && v < q ? v : v < 0 && v > -q ? v + q : Math.floorMod(v, q);
      }
    }
    return new RnsPoly(limbs, false);
  }

  public int limbCount() {
    return limbs.length;
  }

  public int degree() {
    return limbs[0].length;
  }

  public boolean isNtt() {
    return ntt;
  }

  /** The residues modulo the {@code index}-th prime. The array is this polynomial's own. */
  public long[] limb(int index) {
    return limbs[index];
  }

  public RnsPoly copy() {
    long[][] copy = new long[limbs.length][];
    for (int l = 0; l < limbs.length; l++) {
      copy[l] = limbs[l].clone();
    }
    return new RnsPoly(copy, ntt);
  }

  /** A copy of the first {@code count} limbs. */
  public RnsPoly firstLimbs(int count) {
    if (count < 1 || count > limbs.length) {
      throw new IllegalArgumentException(
          "limb count must be in [1, " + limbs.length + "], was " + count);
    }
    long[][] copy = new long[count][];
    for (int l = 0; l < count; l++) {
      copy[l] = limbs[l].clone();
    }
    return new RnsPoly(copy, ntt);
  }

  /** Transforms every limb to NTT form. Requires coefficient form. */
  public void toNttInPlace(List<NegacyclicNtt> ntts) {
    requireForm(false);
    for (int l = 0; l < limbs.length; l++) {
      ntts.get(l).forwardInPlace(limbs[l]);
    }
    ntt = true;
  }

  /** Transforms every limb back to coefficients. Requires NTT form. */
  public void toCoefficientsInPlace(List<NegacyclicNtt> ntts) {
    requireForm(true);
    for (int l = 0; l < limbs.length; l++) {
      ntts.get(l).inverseInPlace(limbs[l]);
    }
    ntt = false;
  }

  /**
   * {@code this += other}, limb by limb; both in the same form and with at least this many limbs.
   */
  public void addInPlace(RnsPoly other, List<Modulus> moduli) {
    requireCompatible(other);
    for (int l = 0; l < limbs.length; l++) {
      long q = moduli.get(l).value();
      long[] a = limbs[l];
      long[] b = other.limbs[l];
      for (int i = 0; i < a.length; i++) {
        long s = a[i] + b[i];
        a[i] = s >= q ? s - q : s;
      }
    }
  }

  /** {@code this = -this}. */
  public void negateInPlace(List<Modulus> moduli) {
    for (int l = 0; l < limbs.length; l++) {
      long q = moduli.get(l).value();
      long[] a = limbs[l];
      for (int i = 0; i < a.length; i++) {
        a[i] = a[i] == 0 ? 0 : q - a[i];
      }
    }
  }

  /** {@code this *= other} point-wise; both in NTT form. */
  public void multiplyInPlace(RnsPoly other, List<Modulus> moduli) {
    requireForm(true);
    requireCompatible(other);
    for (int l = 0; l < limbs.length; l++) {
      Modulus q = moduli.get(l);
      long[] a = limbs[l];
      long[] b = other.limbs[l];
      for (int i = 0; i < a.length; i++) {
        a[i] = q.mul(a[i], b[i]);
      }
    }
  }

  private void requireForm(boolean wantNtt) {
    if (ntt != wantNtt) {
      throw new IllegalStateException(
          "polynomial must be in " + (wantNtt ? "NTT" : "coefficient") + " form");
    }
  }

  private void requireCompatible(RnsPoly other) {
    if (other.ntt != ntt || other.limbs.length < limbs.length || other.degree() != degree()) {
      throw new IllegalArgumentException(
          "operands differ: "
              + limbs.length
              + "x"
              + degree()
              + (ntt ? " NTT" : " coeff")
              + " vs "
              + other.limbs.length
              + "x"
              + other.degree()
              + (other.ntt ? " NTT" : " coeff"));
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RnsPoly p && p.ntt == ntt && Arrays.deepEquals(p.limbs, limbs);
  }

  @Override
  public int hashCode() {
    return Arrays.deepHashCode(limbs) * 31 + (ntt ? 1 : 0);
  }
}
