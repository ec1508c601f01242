package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.ring.Modulus;
import io.tensafe.kernels.ring.NegacyclicNtt;
import io.tensafe.kernels.ring.RnsPoly;
import java.util.List;

/**
 * Homomorphic operations on ciphertexts in NTT form. Every method returns a new ciphertext and
 * leaves its inputs unchanged. Scales multiply under {@link #multiplyPlain} and must agree (to a
 * relative 1e-9) under additions.
 */
public final class Evaluator {
  private static final double SCALE_TOLERANCE = 1e-9;

  private Evaluator() {}

  /**
   * ct × pt: point-wise products of c0 and c1 with the plaintext; scale is the product of scales.
   */
  public static Ciphertext multiplyPlain(Ciphertext ct, Plaintext pt) {
    int limbs = commonLimbs(ct, pt);
    List<Modulus> moduli = ct.parameters().moduli().subList(0, limbs);
    RnsPoly c0 = ct.c0().firstLimbs(limbs);
    RnsPoly c1 = ct.c1().firstLimbs(limbs);
    c0.multiplyInPlace(pt.poly(), moduli);
    c1.multiplyInPlace(pt.poly(), moduli);
    return new Ciphertext(ct.parameters(), c0, c1, ct.scale() * pt.scale(), null);
  }

  /** ct + ct over their common limbs. */
  public static Ciphertext add(Ciphertext a, Ciphertext b) {
    if (!a.parameters().equals(b.parameters())) {
      throw new IllegalArgumentException("ciphertexts have different parameters");
    }
    requireSameScale(a.scale(), b.scale());
    int limbs = Math.min(a.limbCount(), b.limbCount());
    List<Modulus> moduli = a.parameters().moduli().subList(0, limbs);
    RnsPoly c0 = a.c0().firstLimbs(limbs);
    RnsPoly c1 = a.c1().firstLimbs(limbs);
    c0.addInPlace(b.c0(), moduli);
    c1.addInPlace(b.c1(), moduli);
    return new Ciphertext(a.parameters(), c0, c1, a.scale(), null);
  }

  /** ct + pt: adds the plaintext to c0. */
  public static Ciphertext addPlain(Ciphertext ct, Plaintext pt) {
    requireSameScale(ct.scale(), pt.scale());
    int limbs = commonLimbs(ct, pt);
    List<Modulus> moduli = ct.parameters().moduli().subList(0, limbs);
    RnsPoly c0 = ct.c0().firstLimbs(limbs);
    c0.addInPlace(pt.poly(), moduli);
    return new Ciphertext(ct.parameters(), c0, ct.c1().firstLimbs(limbs), ct.scale(), null);
  }

  /** Keeps the first {@code limbs} primes (modulus switching without division; scale unchanged). */
  public static Ciphertext dropLimbs(Ciphertext ct, int limbs) {
    if (limbs < 1 || limbs > ct.limbCount()) {
      throw new IllegalArgumentException(
          "limbs must be in [1, " + ct.limbCount() + "], was " + limbs);
    }
    return new Ciphertext(
        ct.parameters(), ct.c0().firstLimbs(limbs), ct.c1().firstLimbs(limbs), ct.scale(), null);
  }

  /**
   * Divides by the last prime {@code q_last} with rounding and drops it: each remaining limb
   * becomes {@code (c - [c]_{q_last}) · q_last^-1}, where {@code [c]_{q_last}} is the centred
   * residue. The scale is divided by {@code q_last}. Requires at least two limbs.
   */
  public static Ciphertext rescale(Ciphertext ct) {
    if (ct.limbCount() < 2) {
      throw new IllegalArgumentException("rescale needs at least two limbs, has " + ct.limbCount());
    }
    Parameters p = ct.parameters();
    int last = ct.limbCount() - 1;
    Modulus qLast = p.moduli().get(last);
    RnsPoly c0 = rescalePoly(ct.c0(), p, last);
    RnsPoly c1 = rescalePoly(ct.c1(), p, last);
    return new Ciphertext(p, c0, c1, ct.scale() / qLast.value(), null);
  }

  private static RnsPoly rescalePoly(RnsPoly poly, Parameters p, int last) {
    long qLast = p.moduli().get(last).value();
    long[] top = poly.limb(last).clone();
    p.ntts().get(last).inverseInPlace(top);
    RnsPoly result = poly.firstLimbs(last);
    long[] residue = new long[top.length];
    for (int l = 0; l < last; l++) {
      Modulus q = p.moduli().get(l);
      NegacyclicNtt ntt = p.ntts().get(l);
      long inverse = q.pow(q.reduce(qLast), q.value() - 2);
      long inverseShoup = q.shoupPrecompute(inverse);
      for (int i = 0; i < top.length; i++) {
        long centred = top[i] > qLast / 2 ? top[i] - qLast : top[i];
        long r = centred % q.value();
        residue[i] = r < 0 ? r + q.value() : r;
      }
      ntt.forwardInPlace(residue);
      long[] limb = result.limb(l);
      for (int i = 0; i < limb.length; i++) {
        limb[i] = q.mulShoup(q.sub(limb[i], residue[i]), inverse, inverseShoup);
      }
    }
    return result;
  }

  private static int commonLimbs(Ciphertext ct, Plaintext pt) {
    if (!pt.poly().isNtt()) {
      throw new IllegalArgumentException("plaintext must be in NTT form");
    }
    return Math.min(ct.limbCount(), pt.limbCount());
  }

  private static void requireSameScale(double a, double b) {
    if (Math.abs(a - b) > SCALE_TOLERANCE * Math.max(a, b)) {
      throw new IllegalArgumentException("scales differ: " + a + " vs " + b);
    }
  }
}
