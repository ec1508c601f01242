package io.tensafe.kernels.helora;

/** Input checks shared by the operators, and the row norms private mode's bounds are made of. */
public final class RowChecks {
  private RowChecks() {}

  /** Checks A is rectangular and finite, and returns {@code max_i ‖A_i‖₁}. */
  public static double maxRowL1(double[][] a) {
    int d = a[0].length;
    double max = 0;
    for (int i = 0; i < a.length; i++) {
      if (a[i].length != d) {
        throw new IllegalArgumentException(
            "row " + i + " has " + a[i].length + " values, row 0 has " + d);
      }
      double l1 = 0;
      for (int j = 0; j < d; j++) {
        if (!Double.isFinite(a[i][j])) {
          throw new IllegalArgumentException("A[" + i + "][" + j + "] is not finite");
        }
        l1 += Math.abs(a[i][j]);
      }
      max = Math.max(max, l1);
    }
    return max;
  }

  /** {@code max_i ‖A_i‖₂}, for a rectangular, finite A ({@link #maxRowL1} checks both). */
  public static double maxRowL2(double[][] a) {
    maxRowL1(a);
    double max = 0;
    for (double[] row : a) {
      double squares = 0;
      for (double v : row) {
        squares += v * v;
      }
      max = Math.max(max, Math.sqrt(squares));
    }
    return max;
  }

  /** Checks an input has d finite values and returns {@code ‖x‖∞}. */
  static double maxAbs(double[] x, int d, int index) {
    if (x.length != d) {
      throw new IllegalArgumentException(
          "input " + index + " has " + x.length + " values, A has " + d + " columns");
    }
    double max = 0;
    for (int j = 0; j < d; j++) {
      if (!Double.isFinite(x[j])) {
        throw new IllegalArgumentException("input " + index + " value " + j + " is not finite");
      }
      max = Math.max(max, Math.abs(x[j]));
    }
    return max;
  }
}
