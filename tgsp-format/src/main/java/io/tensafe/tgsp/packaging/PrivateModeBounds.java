package io.tensafe.tgsp.packaging;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.peft.AdapterConfig;
import io.tensafe.tgsp.peft.LoraSite;
import io.tensafe.tgsp.peft.PeftAdapter;
import io.tensafe.tgsp.peft.UnsupportedAdapterException;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.safetensors.TensorInfo;
import java.io.IOException;

/**
 * The bounds private mode's scales and DP noise come from (ADR 0025), computed once at pack time
 * from the weights and signed in the manifest, so that a node never derives a scale or a noise
 * level from the weights per session, and a client learns only these three exponents (here, with
 * the packer, because the manifest's record is above {@code peft}):
 *
 * <ul>
 *   <li>{@code a_row_l2_log2}: the least e with {@code 2^e ≥} every row's L2 norm of every A;
 *   <li>{@code b_row_l1_log2}: the least e with {@code 2^e ≥} every row's L1 norm of every scaled B
 *       ({@code s·B}, s the LoRA scaling);
 *   <li>{@code spectral_log2}: the least e with {@code 2^e ≥ ‖s·B‖_F·‖A‖_F} for every site, an
 *       upper bound on the spectral norm of the site's delta {@code s·B·A}.
 * </ul>
 */
public final class PrivateModeBounds {
  /** The exponents' range: weights below 2^-64 or above 2^64 are not served in private mode. */
  public static final int MIN_LOG2 = -64;

  public static final int MAX_LOG2 = 64;

  private PrivateModeBounds() {}

  /**
   * The bounds of every site of {@code adapter} as {@code weights} (the payload being packed, under
   * the tensors' names) and {@code config} (its rank and scaling) hold them.
   *
   * @throws UnsupportedAdapterException if a bound is outside [2^-64, 2^64] or not finite
   */
  public static Manifest.PrivateBounds of(
      PeftAdapter adapter, AdapterConfig config, SafetensorsFile weights)
      throws IOException, TgspException {
    double scale = config.scaling().factor(config.alpha().doubleValue(), config.rank());
    double aRowL2 = 0;
    double bRowL1 = 0;
    double spectral = 0;
    for (LoraSite site : adapter.sites()) {
      double[] a = weights.read(named(weights, site.a().name())).values();
      double[] b = weights.read(named(weights, site.b().name())).values();
      int in = (int) site.inFeatures();
      int rank = a.length / in;
      aRowL2 = Math.max(aRowL2, maxRowL2(a, in));
      bRowL1 = Math.max(bRowL1, maxRowL1(b, rank, scale));
      spectral = Math.max(spectral, frobenius(b, scale) * frobenius(a, 1));
    }
    return new Manifest.PrivateBounds(
        log2AtLeast(aRowL2, "A's row L2"),
        log2AtLeast(bRowL1, "B's row L1"),
        log2AtLeast(spectral, "spectral"));
  }

  /** The tensor of that name in {@code weights} (the payload, which a rank reduction rewrote). */
  private static TensorInfo named(SafetensorsFile weights, String name)
      throws UnsupportedAdapterException {
    return weights.header().tensors().stream()
        .filter(t -> t.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new UnsupportedAdapterException("the payload lacks tensor " + name));
  }

  /** The least e in [-64, 64] with {@code 2^e ≥ x}. */
  static int log2AtLeast(double x, String what) throws UnsupportedAdapterException {
    if (!Double.isFinite(x) || x > Math.scalb(1.0, MAX_LOG2)) {
      throw new UnsupportedAdapterException(
          "the adapter's " + what + " bound " + x + " is above 2^" + MAX_LOG2);
    }
    if (x <= Math.scalb(1.0, MIN_LOG2)) {
      return MIN_LOG2;
    }
    int e = Math.getExponent(x);
    return Math.scalb(1.0, e) >= x ? e : e + 1;
  }

  private static double maxRowL1(double[] m, int width, double scale) {
    double largest = 0;
    for (int row = 0; row < m.length / width; row++) {
      double sum = 0;
      for (int j = 0; j < width; j++) {
        sum += Math.abs(m[row * width + j] * scale);
      }
      largest = Math.max(largest, sum);
    }
    return largest;
  }

  private static double maxRowL2(double[] m, int width) {
    double largest = 0;
    for (int row = 0; row < m.length / width; row++) {
      double sum = 0;
      for (int j = 0; j < width; j++) {
        sum += m[row * width + j] * m[row * width + j];
      }
      largest = Math.max(largest, Math.sqrt(sum));
    }
    return largest;
  }

  private static double frobenius(double[] m, double scale) {
    double sum = 0;
    for (double v : m) {
      sum += (v * scale) * (v * scale);
    }
    return Math.sqrt(sum);
  }
}
