package io.tensafe.kernels.helora;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Assertions;

/** Realistic, seeded test data for HE-LoRA, and the double-precision reference. */
final class LoraData {
  private LoraData() {}

  /**
   * LoRA A of r×d: Gaussian entries of standard deviation 1/sqrt(d), the scale PEFT's
   * Kaiming-uniform initialisation gives and training keeps.
   */
  static double[][] loraA(int rank, int dimension, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[][] a = new double[rank][dimension];
    double sigma = 1 / Math.sqrt(dimension);
    for (double[] row : a) {
      for (int j = 0; j < dimension; j++) {
        row[j] = random.nextGaussian() * sigma;
      }
    }
    return a;
  }

  /**
   * Inputs of a LoRA site after RMSNorm: mostly unit-variance Gaussian, with 1% outlier channels
   * twenty times larger, as seen in real transformer activations.
   */
  static double[][] activations(int count, int dimension, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[][] x = new double[count][dimension];
    for (double[] row : x) {
      for (int j = 0; j < dimension; j++) {
        row[j] = random.nextGaussian() * (j % 100 == 7 ? 20 : 1);
      }
    }
    return x;
  }

  /** Runs {@code operator} on realistic data and asserts max relative error <= 1e-4 per token. */
  static void assertPreciseOnRealisticData(HeLoraOperator operator, int d, int r, int tokens) {
    double[][] a = loraA(r, d, 31L * d + r);
    double[][] x = activations(tokens, d, 17L * d + r);
    HeLoraResult result = operator.apply(operator.prepare(a), x);
    for (int t = 0; t < tokens; t++) {
      double error = maxRelativeError(multiply(a, x[t]), result.outputs()[t]);
      Assertions.assertTrue(
          error <= 1e-4, "d=" + d + " r=" + r + " token " + t + ": max relative error " + error);
    }
  }

  static double[] multiply(double[][] a, double[] x) {
    double[] y = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      double sum = 0;
      for (int j = 0; j < x.length; j++) {
        sum += a[i][j] * x[j];
      }
      y[i] = sum;
    }
    return y;
  }

  /** max_i |y_i - ŷ_i| / max_i |y_i|: error relative to the output's magnitude. */
  static double maxRelativeError(double[] expected, double[] actual) {
    double error = 0;
    double magnitude = 0;
    for (int i = 0; i < expected.length; i++) {
      error = Math.max(error, Math.abs(expected[i] - actual[i]));
      magnitude = Math.max(magnitude, Math.abs(expected[i]));
    }
    return error / magnitude;
  }
}
