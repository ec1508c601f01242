package io.tensafe.marketplace.privacy;

/**
 * The standard normal distribution function Φ, accurate in both tails (relative error about 1e-13
 * or better down to Φ(−37)), which (ε, δ) accounting needs for δ as small as 1e-12.
 */
final class Normal {
  private static final double SQRT_PI = Math.sqrt(Math.PI);

  private Normal() {}

  /** Φ(x) = P(Z ≤ x) for a standard normal Z. Range: [0, 1]. */
  static double cdf(double x) {
    return x < 0 ? 0.5 * erfc(-x / Math.sqrt(2)) : 1 - 0.5 * erfc(x / Math.sqrt(2));
  }

  /**
   * The complementary error function for x ≥ 0: the Maclaurin series of erf below 2, a continued
   * fraction (evaluated by Lentz's method) above.
   */
  static double erfc(double x) {
    if (x < 0) {
      throw new IllegalArgumentException("erfc is evaluated for x >= 0, was " + x);
    }
    if (x < 2) {
      double term = x;
      double sum = x;
      double x2 = x * x;
      for (int n = 1; n < 100; n++) {
        term *= -x2 / n;
        double add = term / (2 * n + 1);
        sum += add;
        if (Math.abs(add) < 1e-17 * Math.abs(sum)) {
          break;
        }
      }
      return 1 - 2 / SQRT_PI * sum;
    }
    if (x > 27) {
      return 0; // below the smallest double
    }
    // erfc(x) = exp(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))).
    double tiny = 1e-300;
    double f = x;
    double c = x;
    double d = 0;
    for (int k = 1; k < 500; k++) {
      double a = k / 2.0;
      d = x + a * d;
      d = Math.abs(d) < tiny ? tiny : d;
      c = x + a / c;
      c = Math.abs(c) < tiny ? tiny : c;
      d = 1 / d;
      double delta = c * d;
      f *= delta;
      if (Math.abs(delta - 1) < 1e-16) {
        break;
      }
    }
    return Math.exp(-x * x) / SQRT_PI / f;
  }
}
