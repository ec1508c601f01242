package io.tensafe.node.privatemode;

import io.tensafe.node.runtime.LoraAdapter;
import java.util.List;

/**
 * A modified client's reconstruction of one site's M = s·B·A from the pairs (x, M·x) it received,
 * by least squares in double precision, and how good it is on held-out activations.
 *
 * <p>The fit solves the normal equations {@code (XᵀX + λI)·M̂ᵀ = XᵀY} by Cholesky, with a ridge λ
 * of 1e-10 times XᵀX's mean eigenvalue: below the rank of the inputs it is the minimum-norm fit M·P
 * (P the projection onto the inputs' span), which is all any fit can learn (a rank-r model does not
 * help: after M's column space is known each token gives only r numbers, A·x, so the r × d_in
 * matrix A still needs inputs spanning the directions it is asked about).
 */
final class SiteReconstruction {
  private SiteReconstruction() {}

  /** M = s·B·A, d_out × d_in. */
  static double[][] product(LoraAdapter.Site site) {
    double[][] a = site.a();
    double[][] b = site.b();
    double[][] m = new double[b.length][a[0].length];
    for (int o = 0; o < b.length; o++) {
      for (int k = 0; k < a.length; k++) {
        double w = site.scale() * b[o][k];
        for (int i = 0; i < a[0].length; i++) {
          m[o][i] += w * a[k][i];
        }
      }
    }
    return m;
  }

  /** M̂ (d_out × d_in) fitted to the first {@code n} pairs. */
  static double[][] fit(List<double[]> inputs, List<double[]> deltas, int n) {
    int in = inputs.getFirst().length;
    int out = deltas.getFirst().length;
    double[][] gram = new double[in][in];
    double[][] cross = new double[in][out];
    for (int t = 0; t < n; t++) {
      double[] x = inputs.get(t);
      double[] y = deltas.get(t);
      for (int i = 0; i < in; i++) {
        double xi = x[i];
        if (xi == 0) {
          continue;
        }
        for (int j = 0; j <= i; j++) {
          gram[i][j] += xi * x[j];
        }
        for (int o = 0; o < out; o++) {
          cross[i][o] += xi * y[o];
        }
      }
    }
    double trace = 0;
    for (int i = 0; i < in; i++) {
      trace += gram[i][i];
    }
    double ridge = Math.max(1e-10 * trace / in, Double.MIN_NORMAL);
    for (int i = 0; i < in; i++) {
      gram[i][i] += ridge;
    }
    double[][] l = cholesky(gram);
    double[][] fit = new double[out][in];
    double[] column = new double[in];
    for (int o = 0; o < out; o++) {
      for (int i = 0; i < in; i++) {
        column[i] = cross[i][o];
      }
      solveInto(l, column, fit[o]);
    }
    return fit;
  }

  /** ‖(M̂ − M)·X‖_F / ‖M·X‖_F over the rows x of {@code test}. */
  static double relativeError(double[][] fit, double[][] m, List<double[]> test) {
    double error = 0;
    double norm = 0;
    for (double[] x : test) {
      for (int o = 0; o < m.length; o++) {
        double exact = 0;
        double fitted = 0;
        for (int i = 0; i < x.length; i++) {
          exact += m[o][i] * x[i];
          fitted += fit[o][i] * x[i];
        }
        error += (fitted - exact) * (fitted - exact);
        norm += exact * exact;
      }
    }
    return Math.sqrt(error / norm);
  }

  /** The relative error on {@code test} of the fit to the first {@code n} pairs (1 for none). */
  static double errorAfter(SiteRecorder.Pairs train, double[][] m, List<double[]> test, int n) {
    return n == 0 ? 1 : relativeError(fit(train.inputs(), train.deltas(), n), m, test);
  }

  /**
   * The smallest n with error at most {@code target}, by bisection over [0, pairs] (the error of
   * the minimum-norm fit falls as the inputs' span grows; the caller checks a window below the
   * answer), or -1 if all the pairs do not reach it.
   */
  static int tokensToReach(
      SiteRecorder.Pairs train, double[][] m, List<double[]> test, double target) {
    int hi = train.size();
    if (errorAfter(train, m, test, hi) > target) {
      return -1;
    }
    int lo = 0;
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      if (errorAfter(train, m, test, mid) <= target) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return hi;
  }

  /** Lower-triangular L with L·Lᵀ = g (g's lower triangle is read). */
  private static double[][] cholesky(double[][] g) {
    int n = g.length;
    double[][] l = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j <= i; j++) {
        double s = g[i][j];
        for (int k = 0; k < j; k++) {
          s -= l[i][k] * l[j][k];
        }
        if (i == j) {
          if (!(s > 0)) {
            throw new ArithmeticException("the normal equations are not positive definite");
          }
          l[i][i] = Math.sqrt(s);
        } else {
          l[i][j] = s / l[j][j];
        }
      }
    }
    return l;
  }

  /** x with L·Lᵀ·x = b. */
  private static void solveInto(double[][] l, double[] b, double[] x) {
    int n = b.length;
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      double s = b[i];
      for (int k = 0; k < i; k++) {
        s -= l[i][k] * y[k];
      }
      y[i] = s / l[i][i];
    }
    for (int i = n - 1; i >= 0; i--) {
      double s = y[i];
      for (int k = i + 1; k < n; k++) {
        s -= l[k][i] * x[k];
      }
      x[i] = s / l[i][i];
    }
  }
}
