package io.tensafe.marketplace.privacy;

import java.security.SecureRandom;

/**
 * The Gaussian mechanism: release {@code f(D) + N(0, σ²)} per coordinate, for an L2 sensitivity Δ.
 *
 * <p>Calibrations:
 *
 * <ul>
 *   <li>{@link #analyticSigma}: the smallest σ that is (ε, δ)-DP, by the exact condition of Balle
 *       and Wang (ICML 2018, Theorem 8): {@code Φ(Δ/(2σ) − εσ/Δ) − e^ε·Φ(−Δ/(2σ) − εσ/Δ) ≤ δ};
 *   <li>{@link #classicSigma}: {@code Δ·sqrt(2 ln(1.25/δ))/ε} (Dwork and Roth, Theorem A.1, valid
 *       for ε < 1), kept for comparison.
 * </ul>
 *
 * <p>Noise comes from {@link SecureRandom#nextGaussian()}: the JDK's polar method over the CSPRNG's
 * doubles. Floating-point sampling is not an exact real Gaussian (Mironov, CCS 2012); the deviation
 * is far below the noise and is accepted here. Stateless and thread-safe.
 */
public final class GaussianMechanism {
  private GaussianMechanism() {}

  /**
   * The δ for which the mechanism with noise σ is (ε, δ)-DP at sensitivity Δ, exactly (Balle and
   * Wang, Theorem 8). Range: [0, 1].
   */
  public static double delta(double sigma, double epsilon, double sensitivity) {
    requirePositive(sigma, "sigma");
    requirePositive(sensitivity, "sensitivity");
    if (!(epsilon >= 0) || Double.isInfinite(epsilon)) {
      throw new IllegalArgumentException("epsilon must be finite and >= 0, was " + epsilon);
    }
    double a = sensitivity / (2 * sigma);
    double b = epsilon * sigma / sensitivity;
    double second = Normal.cdf(-a - b);
    double result = Normal.cdf(a - b) - (second == 0 ? 0 : Math.exp(epsilon + Math.log(second)));
    return Math.max(0, Math.min(1, result));
  }

  /**
   * The smallest σ (to a relative 1e-10) for which the mechanism is (ε, δ)-DP at sensitivity Δ.
   *
   * @param epsilon > 0
   * @param delta in (0, 1)
   */
  public static double analyticSigma(double epsilon, double delta, double sensitivity) {
    requirePositive(epsilon, "epsilon");
    requirePositive(sensitivity, "sensitivity");
    if (!(delta > 0 && delta < 1)) {
      throw new IllegalArgumentException("delta must be in (0, 1), was " + delta);
    }
    // delta(σ) decreases in σ: bracket, then bisect.
    double lo = sensitivity * 1e-6;
    double hi = sensitivity;
    while (delta(hi, epsilon, sensitivity) > delta) {
      lo = hi;
      hi *= 2;
      if (hi > sensitivity * 1e12) {
        throw new IllegalArgumentException("no sigma below 1e12·Δ reaches delta " + delta);
      }
    }
    while (hi - lo > 1e-10 * hi) {
      double mid = (lo + hi) / 2;
      if (delta(mid, epsilon, sensitivity) > delta) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return hi;
  }

  /** {@code Δ·sqrt(2 ln(1.25/δ))/ε}, the classic calibration (valid for ε < 1). */
  public static double classicSigma(double epsilon, double delta, double sensitivity) {
    requirePositive(epsilon, "epsilon");
    requirePositive(sensitivity, "sensitivity");
    if (!(delta > 0 && delta < 1)) {
      throw new IllegalArgumentException("delta must be in (0, 1), was " + delta);
    }
    return sensitivity * Math.sqrt(2 * Math.log(1.25 / delta)) / epsilon;
  }

  /** Adds independent N(0, σ²) noise to every value, in place. */
  public static void addNoise(double[] values, double sigma, SecureRandom random) {
    requirePositive(sigma, "sigma");
    for (int i = 0; i < values.length; i++) {
      values[i] += sigma * random.nextGaussian();
    }
  }

  static void requirePositive(double value, String name) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + " must be finite and > 0, was " + value);
    }
  }
}
