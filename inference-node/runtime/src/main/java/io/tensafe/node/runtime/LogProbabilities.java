package io.tensafe.node.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The model's log-probabilities at one step: log-softmax over the raw logits (every id of the
 * vocabulary, before temperature, top-k, top-p and any constraint's mask, as OpenAI reports them),
 * computed in double precision with the max subtracted, and the {@code n} most likely ids. So a
 * step's probabilities sum to 1 over the vocabulary and any {@code n} of them to at most 1, and at
 * temperature 0 without a mask the token drawn is the first of the top ids.
 */
public final class LogProbabilities {
  /** The most alternatives a step reports: OpenAI's bound on {@code top_logprobs}. */
  public static final int MAX_TOP = 20;

  private LogProbabilities() {}

  /**
   * log Σ exp(logits): the normaliser of the softmax.
   *
   * @param logits one per vocabulary id, finite or −∞, at least one finite
   */
  static double logSumExp(float[] logits) {
    float max = Float.NEGATIVE_INFINITY;
    for (float l : logits) {
      max = Math.max(max, l);
    }
    double sum = 0;
    for (float l : logits) {
      sum += Math.exp((double) l - max);
    }
    return max + Math.log(sum);
  }

  /**
   * The {@code n} ids with the largest logits, largest first, ties towards the lower id (as {@link
   * Sampler}'s argmax); fewer when the vocabulary is smaller. O(vocabulary × n) at worst, one pass.
   */
  static int[] topIds(float[] logits, int n) {
    int k = Math.min(n, logits.length);
    int[] ids = new int[k];
    int size = 0;
    for (int id = 0; id < logits.length; id++) {
      float l = logits[id];
      if (size == k && (k == 0 || !(l > logits[ids[k - 1]]))) {
        continue; // not above the smallest kept; an equal logit keeps the lower id kept
      }
      int at = size == k ? k - 1 : size++;
      while (at > 0 && l > logits[ids[at - 1]]) {
        ids[at] = ids[at - 1];
        at--;
      }
      ids[at] = id;
    }
    return ids;
  }

  /**
   * The entry of the token {@code chosen} drawn at a step with {@code logits}.
   *
   * @param text the chosen token's text in the answer ({@link TokenLogprob#token})
   * @param top alternatives to report, 0 to {@link #MAX_TOP}
   * @param decodeEach each id's text decoded alone
   */
  static TokenLogprob entry(
      float[] logits, int chosen, String text, int top, Function<long[], String[]> decodeEach) {
    if (top < 0 || top > MAX_TOP) {
      throw new IllegalArgumentException("top must be in [0, " + MAX_TOP + "], was " + top);
    }
    double norm = logSumExp(logits);
    int[] ids = topIds(logits, top);
    long[] asLongs = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      asLongs[i] = ids[i];
    }
    String[] texts = ids.length == 0 ? new String[0] : decodeEach.apply(asLongs);
    List<TokenLogprob.Alternative> alternatives = new ArrayList<>(ids.length);
    for (int i = 0; i < ids.length; i++) {
      alternatives.add(new TokenLogprob.Alternative(texts[i], logprob(logits[ids[i]], norm)));
    }
    return new TokenLogprob(text, logprob(logits[chosen], norm), alternatives);
  }

  /** {@code logit − norm}, clamped to ≤ 0 (rounding can leave the largest a hair above). */
  private static double logprob(float logit, double norm) {
    return Math.min(0, logit - norm);
  }
}
