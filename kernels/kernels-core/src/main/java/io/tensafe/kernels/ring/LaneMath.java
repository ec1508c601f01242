package io.tensafe.kernels.ring;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Modular arithmetic on SIMD lanes of 64-bit words, lane for lane the same results as {@link
 * Modulus}'s scalar methods. Only loaded when the {@code jdk.incubator.vector} module is (see
 * {@link NttImplementation}).
 */
final class LaneMath {
  /** The machine's preferred vector of 64-bit words. */
  static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_PREFERRED;

  private static final long LOW_WORD = 0xFFFF_FFFFL;

  private LaneMath() {}

  /** Lanes of one vector of 64-bit words on this machine. */
  static int lanes() {
    return SPECIES.length();
  }

  /**
   * The high 64 bits of the unsigned 128-bit product, per lane, exactly: the API has no such
   * multiply, so it is built from four 32×32→64-bit lane products.
   */
  static LongVector multiplyHigh(LongVector a, LongVector b) {
    LongVector aLow = a.and(LOW_WORD);
    LongVector aHigh = a.lanewise(VectorOperators.LSHR, 32);
    LongVector bLow = b.and(LOW_WORD);
    LongVector bHigh = b.lanewise(VectorOperators.LSHR, 32);
    LongVector lowLow = aLow.mul(bLow);
    LongVector lowHigh = aLow.mul(bHigh);
    LongVector highLow = aHigh.mul(bLow);
    LongVector middle =
        lowLow
            .lanewise(VectorOperators.LSHR, 32)
            .add(lowHigh.and(LOW_WORD))
            .add(highLow.and(LOW_WORD)); // < 3·2^32
    return aHigh
        .mul(bHigh)
        .add(lowHigh.lanewise(VectorOperators.LSHR, 32))
        .add(highLow.lanewise(VectorOperators.LSHR, 32))
        .add(middle.lanewise(VectorOperators.LSHR, 32));
  }

  /** As {@link Modulus#mulShoupLazy}: {@code y·w mod q} in [0, 2q), y any unsigned word. */
  static LongVector mulShoupLazy(LongVector y, LongVector w, LongVector wShoup, LongVector q) {
    return y.mul(w).sub(multiplyHigh(y, wShoup).mul(q));
  }

  /** {@code x - bound} where {@code x >= bound}, else {@code x}: [0, 2·bound) to [0, bound). */
  static LongVector reduceOnce(LongVector x, LongVector bound) {
    return x.lanewise(VectorOperators.UMIN, x.sub(bound));
  }
}
