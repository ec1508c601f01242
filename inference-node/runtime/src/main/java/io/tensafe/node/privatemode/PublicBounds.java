package io.tensafe.node.privatemode;

/**
 * Bounds on an adapter's weights that a private session may reveal: each rounded up to a power of
 * two, so the client learns at most the exponent (ADR 0017 fixes scales from public bounds).
 */
final class PublicBounds {
  private PublicBounds() {}

  /** The smallest power of two ≥ {@code x}, for x > 0 and finite; 1 for x = 0. */
  static double powerOfTwoAtLeast(double x) {
    if (!(x >= 0) || Double.isInfinite(x)) {
      throw new IllegalArgumentException("a weight bound must be finite and non-negative");
    }
    if (x == 0) {
      return 1;
    }
    double p = Math.scalb(1.0, Math.getExponent(x));
    return p >= x ? p : 2 * p;
  }

  static double frobenius(double[][] m) {
    double sum = 0;
    for (double[] row : m) {
      for (double v : row) {
        sum += v * v;
      }
    }
    return Math.sqrt(sum);
  }
}
