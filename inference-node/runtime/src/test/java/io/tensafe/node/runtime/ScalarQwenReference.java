package io.tensafe.node.runtime;

import io.tensafe.node.model.ModelFolder;
import io.tensafe.node.model.ModelShape;
import io.tensafe.node.model.WeightTensor;

/**
 * The Qwen3 forward pass in plain loops over doubles, written from the architecture's definition
 * and independent of DJL, for checking {@link QwenDecoder} on small models. Full recompute, no
 * cache; returns the last position's logits.
 */
final class ScalarQwenReference {
  private final ModelFolder folder;
  private final ModelShape s;
  private boolean ignoreBiases;
  private final java.util.Map<String, float[]> widened = new java.util.HashMap<>();

  ScalarQwenReference(ModelFolder folder) {
    this.folder = folder;
    this.s = folder.shape();
  }

  /** The same reference with the q/k/v biases left out: what a decoder that skips them computes. */
  ScalarQwenReference ignoringBiases() {
    ignoreBiases = true;
    return this;
  }

  private float[] w(String name) {
    WeightTensor t = folder.weights().get(name);
    return t == null ? null : widened.computeIfAbsent(name, n -> t.floats());
  }

  /** out[o] = Σ_i W[o][i]·x[i] for W of shape (rows, cols). */
  /** Adds the bias {@code name} when the folder has it and biases are not ignored. */
  private double[] plusBias(double[] y, String name) {
    float[] bias = ignoreBiases ? null : w(name);
    if (bias != null) {
      for (int i = 0; i < y.length; i++) {
        y[i] += bias[i];
      }
    }
    return y;
  }

  private static double[] linear(float[] weight, double[] x, int rows) {
    int cols = x.length;
    double[] out = new double[rows];
    for (int o = 0; o < rows; o++) {
      double sum = 0;
      for (int i = 0; i < cols; i++) {
        sum += weight[o * cols + i] * x[i];
      }
      out[o] = sum;
    }
    return out;
  }

  private double[] rmsNorm(double[] x, int from, int len, float[] weight) {
    double ms = 0;
    for (int i = 0; i < len; i++) {
      ms += x[from + i] * x[from + i];
    }
    double scale = 1 / Math.sqrt(ms / len + folder.rmsNormEps());
    double[] out = new double[len];
    for (int i = 0; i < len; i++) {
      out[i] = x[from + i] * scale * weight[i];
    }
    return out;
  }

  private void rope(double[] vec, int from, int d, int position) {
    int half = d / 2;
    for (int j = 0; j < half; j++) {
      double angle = position * Math.pow(folder.ropeTheta(), -2.0 * j / d);
      double a = vec[from + j];
      double b = vec[from + j + half];
      vec[from + j] = a * Math.cos(angle) - b * Math.sin(angle);
      vec[from + j + half] = b * Math.cos(angle) + a * Math.sin(angle);
    }
  }

  double[] lastLogits(long[] tokens) {
    int n = tokens.length;
    int h = s.hiddenSize();
    int heads = s.attentionHeads();
    int kv = s.keyValueHeads();
    int d = s.headDim();
    float[] embed = w("model.embed_tokens.weight");
    double[][] x = new double[n][h];
    for (int t = 0; t < n; t++) {
      for (int i = 0; i < h; i++) {
        x[t][i] = embed[(int) tokens[t] * h + i];
      }
    }
    for (int layer = 0; layer < s.layers(); layer++) {
      String p = "model.layers." + layer + ".";
      double[][] q = new double[n][];
      double[][] k = new double[n][];
      double[][] v = new double[n][];
      for (int t = 0; t < n; t++) {
        double[] hn = rmsNorm(x[t], 0, h, w(p + "input_layernorm.weight"));
        q[t] =
            plusBias(
                linear(w(p + "self_attn.q_proj.weight"), hn, heads * d),
                p + "self_attn.q_proj.bias");
        k[t] =
            plusBias(
                linear(w(p + "self_attn.k_proj.weight"), hn, kv * d), p + "self_attn.k_proj.bias");
        v[t] =
            plusBias(
                linear(w(p + "self_attn.v_proj.weight"), hn, kv * d), p + "self_attn.v_proj.bias");
        for (int head = 0; head < heads; head++) {
          if (w(p + "self_attn.q_norm.weight") != null) {
            double[] normed = rmsNorm(q[t], head * d, d, w(p + "self_attn.q_norm.weight"));
            System.arraycopy(normed, 0, q[t], head * d, d);
          }
          rope(q[t], head * d, d, t);
        }
        for (int head = 0; head < kv; head++) {
          if (w(p + "self_attn.k_norm.weight") != null) {
            double[] normed = rmsNorm(k[t], head * d, d, w(p + "self_attn.k_norm.weight"));
            System.arraycopy(normed, 0, k[t], head * d, d);
          }
          rope(k[t], head * d, d, t);
        }
      }
      for (int t = 0; t < n; t++) {
        double[] merged = new double[heads * d];
        for (int head = 0; head < heads; head++) {
          int kvHead = head / (heads / kv);
          double[] scores = new double[t + 1];
          double max = Double.NEGATIVE_INFINITY;
          for (int u = 0; u <= t; u++) {
            double dot = 0;
            for (int j = 0; j < d; j++) {
              dot += q[t][head * d + j] * k[u][kvHead * d + j];
            }
            scores[u] = dot / Math.sqrt(d);
            max = Math.max(max, scores[u]);
          }
          double total = 0;
          for (int u = 0; u <= t; u++) {
            scores[u] = Math.exp(scores[u] - max);
            total += scores[u];
          }
          for (int u = 0; u <= t; u++) {
            for (int j = 0; j < d; j++) {
              merged[head * d + j] += scores[u] / total * v[u][kvHead * d + j];
            }
          }
        }
        double[] attention = linear(w(p + "self_attn.o_proj.weight"), merged, h);
        for (int i = 0; i < h; i++) {
          x[t][i] += attention[i];
        }
        double[] m = rmsNorm(x[t], 0, h, w(p + "post_attention_layernorm.weight"));
        double[] gate = linear(w(p + "mlp.gate_proj.weight"), m, s.intermediateSize());
        double[] up = linear(w(p + "mlp.up_proj.weight"), m, s.intermediateSize());
        for (int i = 0; i < gate.length; i++) {
          gate[i] = gate[i] / (1 + Math.exp(-gate[i])) * up[i];
        }
        double[] down = linear(w(p + "mlp.down_proj.weight"), gate, h);
        for (int i = 0; i < h; i++) {
          x[t][i] += down[i];
        }
      }
    }
    double[] last = rmsNorm(x[n - 1], 0, h, w("model.norm.weight"));
    float[] head = w("lm_head.weight") != null ? w("lm_head.weight") : embed;
    return linear(head, last, s.vocabSize());
  }
}
