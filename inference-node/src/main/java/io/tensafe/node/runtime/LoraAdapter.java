package io.tensafe.node.runtime;

import io.tensafe.node.model.ModelShape;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

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

  /**
   * A random adapter on q, k, v and o of every layer, for tests and benchmarks: A ~ N(0, 1/in), B ~
   * N(0, bStd²) (PEFT initialises B to zero; a non-zero B is what changes the output).
   */
  public static LoraAdapter randomForAttention(
      ModelShape s, int rank, double scale, double bStd, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Site> sites = new HashMap<>();
    int h = s.hiddenSize();
    int q = s.attentionHeads() * s.headDim();
    int kv = s.keyValueHeads() * s.headDim();
    for (int layer = 0; layer < s.layers(); layer++) {
      String p = "model.layers." + layer + ".self_attn.";
      sites.put(p + "q_proj", randomSite(random, rank, h, q, scale, bStd));
      sites.put(p + "k_proj", randomSite(random, rank, h, kv, scale, bStd));
      sites.put(p + "v_proj", randomSite(random, rank, h, kv, scale, bStd));
      sites.put(p + "o_proj", randomSite(random, rank, q, h, scale, bStd));
    }
    return new LoraAdapter(sites);
  }

  private static Site randomSite(
      SplittableRandom r, int rank, int in, int out, double scale, double bStd) {
    double[][] a = new double[rank][in];
    double[][] b = new double[out][rank];
    for (double[] row : a) {
      for (int j = 0; j < in; j++) {
        row[j] = r.nextGaussian() / Math.sqrt(in);
      }
    }
    for (double[] row : b) {
      for (int j = 0; j < rank; j++) {
        row[j] = r.nextGaussian() * bStd;
      }
    }
    return new Site(a, b, scale);
  }

  /** PEFT's scale: α/r, or α/√r with rsLoRA. */
  public static double scale(double alpha, int rank, boolean rsLora) {
    return rsLora ? alpha / Math.sqrt(rank) : alpha / rank;
  }
}
