package io.tensafe.node.privatemode;

import io.tensafe.node.runtime.LoraAdapter;

/**
 * The adapter's signed bounds private mode uses (ADR 0025; tgsp-format's {@code PrivateModeBounds}
 * computes them at pack time): {@code W = 2^rowL1Log2} bounds every row's L1 norm of A and of the
 * scaled B, and sets the weights' scale; {@code L = 2^spectralLog2} bounds every site's delta's
 * spectral norm, and sets the DP noise. Public: the client learns both exponents.
 *
 * @param rowL1Log2 log2 of W. Range: [-64, 64].
 * @param spectralLog2 log2 of L. Range: [-64, 64].
 */
public record PrivateBounds(int rowL1Log2, int spectralLog2) {
  public PrivateBounds {
    if (Math.abs(rowL1Log2) > 64 || Math.abs(spectralLog2) > 64) {
      throw new IllegalArgumentException("bounds are powers of two from 2^-64 to 2^64");
    }
  }

  /** W. */
  public double weightBound() {
    return Math.scalb(1.0, rowL1Log2);
  }

  /** L. */
  public double spectralBound() {
    return Math.scalb(1.0, spectralLog2);
  }

  /**
   * The bounds a pack of {@code adapter} signs: the least powers of two above its weights (for
   * tests and benchmarks that build adapters without packing them).
   */
  public static PrivateBounds asPackWouldSign(LoraAdapter adapter) {
    double rowL1 = 0;
    double spectral = 0;
    for (LoraAdapter.Site s : adapter.sites().values()) {
      double[][] scaledB = scaled(s.b(), s.scale());
      rowL1 =
          Math.max(rowL1, Math.max(PublicBounds.maxRowL1(s.a()), PublicBounds.maxRowL1(scaledB)));
      spectral =
          Math.max(spectral, PublicBounds.frobenius(scaledB) * PublicBounds.frobenius(s.a()));
    }
    return new PrivateBounds(log2AtLeast(rowL1), log2AtLeast(spectral));
  }

  /**
   * Checks that {@code adapter}'s weights are within these bounds: a package whose signed bounds
   * understate its weights is refused, never served at scales or noise its weights break.
   *
   * @throws IllegalArgumentException naming the site and the bound it exceeds (never the weights'
   *     own norms, which the refusal would give away)
   */
  public void check(LoraAdapter adapter) {
    for (var e : adapter.sites().entrySet()) {
      LoraAdapter.Site s = e.getValue();
      double[][] scaledB = scaled(s.b(), s.scale());
      double rowL1 = Math.max(PublicBounds.maxRowL1(s.a()), PublicBounds.maxRowL1(scaledB));
      if (rowL1 > weightBound()) {
        throw new IllegalArgumentException(
            e.getKey() + "'s row L1 norms exceed the signed bound 2^" + rowL1Log2 + ": repack it");
      }
      double spectral = PublicBounds.frobenius(scaledB) * PublicBounds.frobenius(s.a());
      if (spectral > spectralBound()) {
        throw new IllegalArgumentException(
            e.getKey()
                + "'s ‖s·B‖_F·‖A‖_F "
                + spectral
                + " exceeds the signed bound 2^"
                + spectralLog2);
      }
    }
  }

  static double[][] scaled(double[][] b, double scale) {
    double[][] out = new double[b.length][];
    for (int i = 0; i < b.length; i++) {
      out[i] = b[i].clone();
      for (int j = 0; j < out[i].length; j++) {
        out[i][j] *= scale;
      }
    }
    return out;
  }

  private static int log2AtLeast(double x) {
    return Math.getExponent(PublicBounds.powerOfTwoAtLeast(Math.max(x, 0x1p-64)));
  }
}
