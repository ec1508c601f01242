package io.tensafe.kernels.ckks;

/**
 * In-place iterative radix-2 complex FFT on split real and imaginary arrays of power-of-two size.
 */
final class Fft {
  private Fft() {}

  /**
   * {@code X_k = Σ_i x_i · exp(±2πi·ik/n)}: the sign is + for {@code inverse == false} and - for
   * {@code inverse == true}. No 1/n factor either way.
   */
  static void transform(double[] re, double[] im, boolean inverse) {
    int n = re.length;
    if (Integer.bitCount(n) != 1 || im.length != n) {
      throw new IllegalArgumentException("FFT size must be a power of two, was " + n);
    }
    int bits = Integer.numberOfTrailingZeros(n);
    for (int i = 0; i < n; i++) {
      int j = bits == 0 ? 0 : Integer.reverse(i) >>> (32 - bits);
      if (j > i) {
        double t = re[i];
        re[i] = re[j];
        re[j] = t;
        t = im[i];
        im[i] = im[j];
        im[j] = t;
      }
    }
    double sign = inverse ? -1 : 1;
    for (int length = 2; length <= n; length <<= 1) {
      int half = length >>> 1;
      double step = sign * 2 * Math.PI / length;
      for (int k = 0; k < half; k++) {
        double wr = Math.cos(step * k);
        double wi = Math.sin(step * k);
        for (int start = 0; start < n; start += length) {
          int a = start + k;
          int b = a + half;
          double xr = re[b] * wr - im[b] * wi;
          double xi = re[b] * wi + im[b] * wr;
          re[b] = re[a] - xr;
          im[b] = im[a] - xi;
          re[a] += xr;
          im[a] += xi;
        }
      }
    }
  }
}
