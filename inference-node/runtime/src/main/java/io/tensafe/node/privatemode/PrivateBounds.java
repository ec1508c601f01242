package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.PrivateScales;
import io.tensafe.kernels.helora.RowChecks;
import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.node.runtime.SpectralBound;

/**
 * The adapter's signed bounds private mode uses (ADR 0025; tgsp-format's {@code PrivateModeBounds}
 * computes them at pack time): {@code W_A = 2^aRowL2Log2} bounds every row's L2 norm of A and
 * {@code W_B = 2^bRowL1Log2} every row's L1 norm of the scaled B, and set the weights' scales;
 * {@code L = 2^spectralLog2} bounds every site's delta's spectral norm, and sets the DP noise.
 * Public: the client learns the three exponents.
 *
 * @param aRowL2Log2 log2 of W_A. Range: [-64, 64].
 * @param bRowL1Log2 log2 of W_B. Range: [-64, 64].
 * @param spectralLog2 log2 of L. Range: [-64, 64].
 */
public record PrivateBounds(int aRowL2Log2, int bRowL1Log2, int spectralLog2) {
  public PrivateBounds {
    if (Math.abs(aRowL2Log2) > 64 || Math.abs(bRowL1Log2) > 64 || Math.abs(spectralLog2) > 64) {
      throw new IllegalArgumentException("bounds are powers of two from 2^-64 to 2^64");
    }
  }

  /** L. */
  public double spectralBound() {
    return Math.scalb(1.0, spectralLog2);
  }

  /** The session's scales under {@code policy}'s clip norm and these bounds. */
  public PrivateScales scales(InputPrivacy policy) {
    return new PrivateScales(
        policy.clipNorm(), Math.scalb(1.0, aRowL2Log2), Math.scalb(1.0, bRowL1Log2));
  }

  /**
   * The bounds a pack of {@code adapter} signs: the least powers of two above its weights (for
   * tests and benchmarks that build adapters without packing them).
   */
  public static PrivateBounds asPackWouldSign(LoraAdapter adapter) {
    double aRowL2 = 0;
    double bRowL1 = 0;
    for (LoraAdapter.Site s : adapter.sites().values()) {
      aRowL2 = Math.max(aRowL2, RowChecks.maxRowL2(s.a()));
      bRowL1 = Math.max(bRowL1, RowChecks.maxRowL1(scaled(s.b(), s.scale())));
    }
    return new PrivateBounds(
        SpectralBound.log2AtLeast(aRowL2),
        SpectralBound.log2AtLeast(bRowL1),
        SpectralBound.log2AsPackWouldSign(adapter));
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
      if (RowChecks.maxRowL2(s.a()) > Math.scalb(1.0, aRowL2Log2)) {
        throw new IllegalArgumentException(
            e.getKey() + "'s A exceeds the signed row bound 2^" + aRowL2Log2 + ": repack it");
      }
      if (RowChecks.maxRowL1(scaledB) > Math.scalb(1.0, bRowL1Log2)) {
        throw new IllegalArgumentException(
            e.getKey() + "'s B exceeds the signed row bound 2^" + bRowL1Log2 + ": repack it");
      }
      if (SpectralBound.ofSite(s) > spectralBound()) {
        throw new IllegalArgumentException(
            e.getKey() + " exceeds the signed spectral bound 2^" + spectralLog2 + ": repack it");
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
}
