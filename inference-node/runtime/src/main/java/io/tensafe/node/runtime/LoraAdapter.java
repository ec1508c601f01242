package io.tensafe.node.runtime;

import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.MoeShape;
import java.util.HashMap;
import java.util.List;
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
  /** The attention projections; the other target modules are the MLP's. */
  public static final List<String> ATTENTION = List.of("q_proj", "k_proj", "v_proj", "o_proj");

  /** Every linear module of a decoder layer that an adapter may target. */
  public static final List<String> ALL_MODULES =
      List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj");

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
    return random(s, ATTENTION, rank, scale, bStd, seed);
  }

  /**
   * As {@link #randomForAttention}, on the given modules (any of q/k/v/o_proj and
   * gate/up/down_proj) of every layer.
   */
  public static LoraAdapter random(
      ModelShape s, List<String> modules, int rank, double scale, double bStd, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Site> sites = new HashMap<>();
    for (int layer = 0; layer < s.layers(); layer++) {
      for (String module : modules) {
        int[] widths =
            s.linearWidths(module)
                .orElseThrow(() -> new IllegalArgumentException("no module " + module));
        String block = ATTENTION.contains(module) ? "self_attn." : "mlp.";
        String path = "model.layers." + layer + "." + block + module;
        sites.put(path, randomSite(random, rank, widths[0], widths[1], scale, bStd));
      }
    }
    return new LoraAdapter(sites);
  }

  /**
   * A random adapter on the gate, up and down projections of every expert of every sparse layer of
   * a Qwen3-MoE model ({@code model.layers.L.mlp.experts.E.gate_proj} and so on), as {@link
   * #randomForAttention} draws them.
   */
  public static LoraAdapter randomForExperts(
      ModelShape s, MoeShape moe, int rank, double scale, double bStd, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Site> sites = new HashMap<>();
    int h = s.hiddenSize();
    int w = moe.expertIntermediateSize();
    for (int layer = 0; layer < s.layers(); layer++) {
      if (!moe.sparse(layer)) {
        continue;
      }
      for (int e = 0; e < moe.experts(); e++) {
        String p = "model.layers." + layer + ".mlp.experts." + e + ".";
        sites.put(p + "gate_proj", randomSite(random, rank, h, w, scale, bStd));
        sites.put(p + "up_proj", randomSite(random, rank, h, w, scale, bStd));
        sites.put(p + "down_proj", randomSite(random, rank, w, h, scale, bStd));
      }
    }
    return new LoraAdapter(sites);
  }

  /** This adapter's sites and {@code other}'s (no path in both). */
  public LoraAdapter with(LoraAdapter other) {
    Map<String, Site> all = new HashMap<>(sites);
    for (Map.Entry<String, Site> e : other.sites().entrySet()) {
      if (all.put(e.getKey(), e.getValue()) != null) {
        throw new IllegalArgumentException("both adapters have " + e.getKey());
      }
    }
    return new LoraAdapter(all);
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
