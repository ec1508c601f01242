package io.tensafe.node.runtime;

import java.util.Map;

/**
 * A LoRA adapter as PEFT defines it: at each target module {@code W x + s·B·(A x)}, with {@code s =
 * α/r} (or {@code α/√r} for rsLoRA). Sites are keyed by module path, e.g. {@code
 * model.layers.0.self_attn.q_proj}.
 *
 * @param sites per module: A (r × in, row-major), B (out × r, row-major), rank and scale
 */
public record LoraAdapter(Map<String, Site> sites) {
  public LoraAdapter {
    sites = Map.copyOf(sites);
  }

  /**
   * One target module's factors.
   *
   * @param a r rows of {@code in} values
   * @param b {@code out} rows of r values
   * @param scale s = α/r, or α/√r for rsLoRA
   */
  public record Site(double[][] a, double[][] b, double scale) {
    public Site {
      if (a.length == 0 || b.length == 0 || b[0].length != a.length) {
        throw new IllegalArgumentException(
            "B must have r columns for A's r rows; A has " + a.length + " rows");
      }
    }

    public int rank() {
      return a.length;
    }
  }

  /** PEFT's scale: α/r, or α/√r with rsLoRA. */
  public static double scale(double alpha, int rank, boolean rsLora) {
    return rsLora ? alpha / Math.sqrt(rank) : alpha / rank;
  }
}
