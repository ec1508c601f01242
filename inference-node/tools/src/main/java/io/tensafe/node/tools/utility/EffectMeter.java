package io.tensafe.node.tools.utility;

import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;
import java.util.List;
import java.util.function.Function;

/**
 * The effect a buyer keeps of an adapter under a protection (ADR 0035), measured the one way {@code
 * tgsp pack} and {@code bench utility} share ({@code Manifest.MeasuredEffect.METHOD}): for every
 * prompt, the noiseless adapter's greedy continuation of {@code tokens} tokens is generated; then
 * the base model and the protected adapter are teacher-forced along it. At every position where the
 * noiseless adapter's greedy token differs from the base model's (the positions the adapter
 * changes), the protected adapter agrees when its greedy token is the noiseless adapter's; and at
 * every position, the KL divergence of the protected adapter's next-token distribution from the
 * noiseless adapter's is compared with the base model's.
 */
public final class EffectMeter {
  private EffectMeter() {}

  /**
   * What one measurement found.
   *
   * @param positions positions where the noiseless adapter's greedy token differs from the base's
   * @param agreed of those, positions where the protected adapter's greedy token is the noiseless
   *     adapter's
   * @param klProtected Σ KL(noiseless ‖ protected) over every position, in nats
   * @param klBase Σ KL(noiseless ‖ base) over every position, in nats
   * @param tokens positions measured in all
   */
  public record Result(int positions, int agreed, double klProtected, double klBase, int tokens) {
    /** The share of changed positions kept. Range: [0, 1]; 1 when the adapter changed none. */
    public double agreement() {
      return positions == 0 ? 1 : (double) agreed / positions;
    }

    /** KL to the noiseless adapter relative to the base model's. Range: [0, ∞); 0 keeps all. */
    public double klRatio() {
      return klBase == 0 ? 0 : klProtected / klBase;
    }
  }

  /**
   * The noiseless adapter's side of a measurement, computed once for every protection measured
   * against it: each prompt's greedy path, the noiseless adapter's log-probabilities along it, and
   * the base model's greedy tokens and KL along it.
   */
  public static final class Reference {
    private final List<long[]> prompts;
    private final List<long[]> paths = new java.util.ArrayList<>();
    private final List<float[][]> logProbs = new java.util.ArrayList<>();
    private final List<boolean[]> changed = new java.util.ArrayList<>();
    private double klBase;
    private int positions;

    private Reference(List<long[]> prompts) {
      this.prompts = prompts;
    }

    /** Positions where the noiseless adapter's greedy token differs from the base model's. */
    public int positions() {
      return positions;
    }
  }

  /**
   * The reference of {@code noiseless} over {@code prompts} (token ids of rendered chat prompts).
   *
   * @param noiseless the adapter as served without noise (one per prompt; never shared)
   * @param tokens greedy tokens per prompt, ≥ 1
   */
  public static Reference reference(
      QwenDecoder decoder,
      List<long[]> prompts,
      int tokens,
      Function<long[], AdapterDeltas> noiseless) {
    if (tokens < 1 || prompts.isEmpty()) {
      throw new IllegalArgumentException("measure at least one token of one prompt");
    }
    Reference ref = new Reference(List.copyOf(prompts));
    for (long[] prompt : prompts) {
      float[][] logits = greedyLogits(decoder, prompt, tokens, noiseless.apply(prompt));
      long[] path = new long[tokens];
      float[][] logProbs = new float[tokens][];
      for (int t = 0; t < tokens; t++) {
        path[t] = Sampler.argmax(logits[t]);
        logProbs[t] = toFloats(logSoftmax(logits[t]));
      }
      float[][] base = forcedLogits(decoder, prompt, path, null);
      boolean[] changed = new boolean[tokens];
      for (int t = 0; t < tokens; t++) {
        changed[t] = Sampler.argmax(base[t]) != path[t];
        ref.positions += changed[t] ? 1 : 0;
        ref.klBase += kl(logProbs[t], logSoftmax(base[t]));
      }
      ref.paths.add(path);
      ref.logProbs.add(logProbs);
      ref.changed.add(changed);
    }
    return ref;
  }

  /**
   * Measures {@code protectedPath} (the adapter under the protection measured, one per prompt)
   * against {@code ref}: one teacher-forced pass per prompt.
   */
  public static Result measure(
      QwenDecoder decoder, Reference ref, Function<long[], AdapterDeltas> protectedPath) {
    int agreed = 0;
    double klProtected = 0;
    int tokens = 0;
    for (int i = 0; i < ref.prompts.size(); i++) {
      long[] prompt = ref.prompts.get(i);
      long[] path = ref.paths.get(i);
      float[][] noised = forcedLogits(decoder, prompt, path, protectedPath.apply(prompt));
      for (int t = 0; t < path.length; t++) {
        if (ref.changed.get(i)[t] && Sampler.argmax(noised[t]) == path[t]) {
          agreed++;
        }
        klProtected += kl(ref.logProbs.get(i)[t], logSoftmax(noised[t]));
      }
      tokens += path.length;
    }
    return new Result(ref.positions, agreed, klProtected, ref.klBase, tokens);
  }

  private static float[] toFloats(double[] v) {
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = (float) v[i];
    }
    return out;
  }

  /** The logits at each of {@code tokens} greedy steps of {@code lora}. */
  private static float[][] greedyLogits(
      QwenDecoder decoder, long[] prompt, int tokens, AdapterDeltas lora) {
    float[][] out = new float[tokens][];
    try (KvCache cache = decoder.newCache()) {
      out[0] = decoder.forward(prompt, cache, lora);
      for (int t = 1; t < tokens; t++) {
        out[t] = decoder.forward(new long[] {Sampler.argmax(out[t - 1])}, cache, lora);
      }
    }
    return out;
  }

  /** The logits at each position of {@code path} fed after {@code prompt} (teacher forcing). */
  private static float[][] forcedLogits(
      QwenDecoder decoder, long[] prompt, long[] path, AdapterDeltas lora) {
    float[][] out = new float[path.length][];
    try (KvCache cache = decoder.newCache()) {
      out[0] = decoder.forward(prompt, cache, lora);
      for (int t = 1; t < path.length; t++) {
        out[t] = decoder.forward(new long[] {path[t - 1]}, cache, lora);
      }
    }
    return out;
  }

  static double[] logSoftmax(float[] logits) {
    double max = Double.NEGATIVE_INFINITY;
    for (float v : logits) {
      max = Math.max(max, v);
    }
    double sum = 0;
    for (float v : logits) {
      sum += Math.exp(v - max);
    }
    double log = max + Math.log(sum);
    double[] out = new double[logits.length];
    for (int i = 0; i < logits.length; i++) {
      out[i] = logits[i] - log;
    }
    return out;
  }

  /** KL(p ‖ q) in nats, from log-probabilities. Range: [0, ∞). */
  static double kl(float[] logP, double[] logQ) {
    double sum = 0;
    for (int i = 0; i < logP.length; i++) {
      double p = Math.exp(logP[i]);
      if (p > 0) {
        sum += p * (logP[i] - logQ[i]);
      }
    }
    return Math.max(0, sum);
  }
}
