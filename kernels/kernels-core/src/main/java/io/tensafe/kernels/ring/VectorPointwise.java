package io.tensafe.kernels.ring;

import jdk.incubator.vector.LongVector;

/**
 * {@link PointwiseLoops} on SIMD lanes ({@link LaneMath}): the same words as the scalar loops. Only
 * loaded when the vector module is.
 */
final class VectorPointwise {
  private VectorPointwise() {}

  /** The vector part of {@link PointwiseLoops#decryptedProduct}; returns where the tail starts. */
  static int decryptedProduct(
      long modulus,
      long[] c0,
      long[] c1,
      long[] p,
      long[] pShoup,
      long[] s,
      long[] sShoup,
      long[] out) {
    var species = LaneMath.SPECIES;
    int lanes = species.length();
    LongVector q = LongVector.broadcast(species, modulus);
    int end = out.length - out.length % lanes;
    for (int i = 0; i < end; i += lanes) {
      LongVector pv = LongVector.fromArray(species, p, i);
      LongVector pShoupV = LongVector.fromArray(species, pShoup, i);
      LongVector product0 =
          LaneMath.reduceOnce(
              LaneMath.mulShoupLazy(LongVector.fromArray(species, c0, i), pv, pShoupV, q), q);
      LongVector product1 =
          LaneMath.reduceOnce(
              LaneMath.mulShoupLazy(LongVector.fromArray(species, c1, i), pv, pShoupV, q), q);
      LongVector keyed =
          LaneMath.reduceOnce(
              LaneMath.mulShoupLazy(
                  product1,
                  LongVector.fromArray(species, s, i),
                  LongVector.fromArray(species, sShoup, i),
                  q),
              q);
      LaneMath.reduceOnce(product0.add(keyed), q).intoArray(out, i);
    }
    return end;
  }

  /** {@code Σ_{i < end} v[i]·w[i]} in [0, 2q); {@code end} a multiple of the lanes. */
  static long innerProduct(long modulus, long[] v, long[] w, long[] wShoup, int end) {
    var species = LaneMath.SPECIES;
    int lanes = species.length();
    LongVector q = LongVector.broadcast(species, modulus);
    LongVector twoQ = LongVector.broadcast(species, 2 * modulus);
    LongVector sum = LongVector.zero(species); // each lane in [0, 2q)
    for (int i = 0; i < end; i += lanes) {
      LongVector term =
          LaneMath.mulShoupLazy(
              LongVector.fromArray(species, v, i),
              LongVector.fromArray(species, w, i),
              LongVector.fromArray(species, wShoup, i),
              q);
      sum = LaneMath.reduceOnce(sum.add(term), twoQ);
    }
    long total = 0;
    for (int lane = 0; lane < lanes; lane++) {
      total = (total + Long.remainderUnsigned(sum.lane(lane), modulus)) % modulus;
    }
    return total;
  }
}
