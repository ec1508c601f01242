package io.tensafe.kernels.ring;

import java.util.Arrays;
import jdk.incubator.vector.LongVector;

/**
 * How the vector NTTs run a stage whose butterfly span {@code t} is below the lane count {@code L}:
 * each chunk of {@code 2L} words is gathered into the butterflies' {@code x} and {@code y} operand
 * vectors with two-vector permutes, and the results scattered back. Lane {@code k} of chunk {@code
 * c} uses the twiddle at {@link #twiddleIndex()}{@code [c·L + k]} of the stage's table.
 *
 * @param gatherX chunk positions of the {@code x} operands, lane by lane
 * @param gatherY chunk positions of the {@code y} operands ({@code gatherX + t})
 * @param scatterLow for chunk positions {@code [0, L)}: the lane of {@code concat(x', y')} to store
 * @param scatterHigh the same for chunk positions {@code [L, 2L)}
 * @param twiddleIndex {@code n/2} indices into a twiddle table (forward or inverse), each in [1, n)
 */
record TailPermutes(
    LongVector gatherX,
    LongVector gatherY,
    LongVector scatterLow,
    LongVector scatterHigh,
    int[] twiddleIndex) {

  /** The permutes for span {@code t < L} in a ring of {@code degree ≥ 2L}. */
  static TailPermutes of(int t, int degree) {
    int lanes = LaneMath.lanes();
    int groups = degree / (2 * t);
    int[] twiddleIndex = new int[degree / 2];
    for (int chunk = 0; chunk < degree / (2 * lanes); chunk++) {
      for (int k = 0; k < lanes; k++) {
        // Lane k's butterfly is in group chunk·L/t + k/t of the stage's `groups`.
        twiddleIndex[chunk * lanes + k] = groups + chunk * lanes / t + k / t;
      }
    }
    long[] gatherX = new long[lanes];
    long[] gatherY = new long[lanes];
    long[] positionInPair = new long[2 * lanes]; // chunk position -> lane of concat(x, y)
    for (int k = 0; k < lanes; k++) {
      gatherX[k] = (k / t) * 2L * t + k % t;
      gatherY[k] = gatherX[k] + t;
      positionInPair[(int) gatherX[k]] = k;
      positionInPair[(int) gatherY[k]] = lanes + k;
    }
    return new TailPermutes(
        LongVector.fromArray(LaneMath.SPECIES, gatherX, 0),
        LongVector.fromArray(LaneMath.SPECIES, gatherY, 0),
        LongVector.fromArray(LaneMath.SPECIES, Arrays.copyOfRange(positionInPair, 0, lanes), 0),
        LongVector.fromArray(
            LaneMath.SPECIES, Arrays.copyOfRange(positionInPair, lanes, 2 * lanes), 0),
        twiddleIndex);
  }

  /** {@code table[twiddleIndex[i]]} for every lane slot {@code i}. */
  long[] lay(long[] table) {
    long[] out = new long[twiddleIndex.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = table[twiddleIndex[i]];
    }
    return out;
  }

  /** {@code table[twiddleIndex[i]]} for every lane slot {@code i}. */
  double[] lay(double[] table) {
    double[] out = new double[twiddleIndex.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = table[twiddleIndex[i]];
    }
    return out;
  }
}
