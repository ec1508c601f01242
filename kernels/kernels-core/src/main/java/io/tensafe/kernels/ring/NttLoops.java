package io.tensafe.kernels.ring;

/**
 * One implementation of the negacyclic NTT's loops over {@link NttTables}; all give the same
 * reduced words, and lazy words congruent to them in the stated ranges. Callers ({@link
 * NegacyclicNtt}) check the array length first.
 */
interface NttLoops {
  /** Forward transform. Range: input in [0, 4q); output in [0, 4q). */
  void forwardLazy(long[] a);

  /** Forward transform. Range: input in [0, 4q); output in [0, q). */
  void forward(long[] a);

  /** Inverse transform with {@code n^-1}. Range: input in [0, 2q); output in [0, 2q). */
  void inverseLazy(long[] a);

  /** Inverse transform with {@code n^-1}. Range: input in [0, 2q); output in [0, q). */
  void inverse(long[] a);
}
