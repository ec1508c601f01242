package io.tensafe.node.runtime;

/**
 * The bound L on every site's delta's spectral norm that a pack signs ({@code spectral_log2}): the
 * least power of two at or above {@code max over sites of ‖s·B‖_F · ‖A‖_F}, which bounds {@code
 * ‖s·B·A‖_2}. Both modes' DP noise scales with it (ADR 0035); private mode also reveals its
 * exponent to the client (ADR 0025).
 */
public final class SpectralBound {
  private SpectralBound() {}

  /** {@code ‖s·B‖_F · ‖A‖_F} for one site; ≥ 0. */
  public static double ofSite(LoraAdapter.Site site) {
    return Math.abs(site.scale()) * frobenius(site.b()) * frobenius(site.a());
  }

  /**
   * log2 of the L a pack of {@code adapter} signs (for adapters built without packing: tests,
   * benchmarks, the hosted path's noise). Range: [-64, 64].
   */
  public static int log2AsPackWouldSign(LoraAdapter adapter) {
    double largest = 0;
    for (LoraAdapter.Site s : adapter.sites().values()) {
      largest = Math.max(largest, ofSite(s));
    }
    return log2AtLeast(largest);
  }

  /** L = 2^{@link #log2AsPackWouldSign}. */
  public static double asPackWouldSign(LoraAdapter adapter) {
    return Math.scalb(1.0, log2AsPackWouldSign(adapter));
  }

  /** The exponent of the least power of two ≥ max(x, 2^-64); x finite and ≥ 0. */
  public static int log2AtLeast(double x) {
    if (!(x >= 0) || Double.isInfinite(x)) {
      throw new IllegalArgumentException("a weight bound must be finite and non-negative");
    }
    double v = Math.max(x, 0x1p-64);
    int e = Math.getExponent(v);
    return Math.scalb(1.0, e) >= v ? e : e + 1;
  }

  private static double frobenius(double[][] m) {
    double sum = 0;
    for (double[] row : m) {
      for (double v : row) {
        sum += v * v;
      }
    }
    return Math.sqrt(sum);
  }
}
