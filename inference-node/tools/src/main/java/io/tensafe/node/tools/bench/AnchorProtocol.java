package io.tensafe.node.tools.bench;

import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * How {@code bench node --anchors} times a runner, the same for the node here and for PyTorch in
 * {@code torch_anchor.py} (which repeats it line for line): a warm-up (the prompt and {@value
 * #WARMUP_DECODE_TOKENS} greedy tokens on a throwaway cache), then on a fresh cache the prompt's
 * prefill, timed; {@value #WARMUP_DECODE_TOKENS} greedy tokens, untimed; and {@code decodeTokens}
 * greedy tokens, timed. Both runners get the same prompt ({@link #prompt}).
 */
final class AnchorProtocol {
  /** Greedy tokens decoded untimed before the timed ones, in the warm-up and after the prefill. */
  static final int WARMUP_DECODE_TOKENS = 2;

  private AnchorProtocol() {}

  /**
   * {@code count} token ids, the same every run: {@code 1000 + (7919·i mod 100000)}, all below
   * Qwen's vocabulary size.
   */
  static long[] prompt(int count) {
    long[] ids = new long[count];
    for (int i = 0; i < count; i++) {
      ids[i] = 1000 + (7919L * i) % 100_000;
    }
    return ids;
  }

  /** The largest |a − b| over the largest |a|. */
  static double relativeDifference(float[] a, float[] b) {
    double largest = 0;
    double worst = 0;
    for (int i = 0; i < a.length; i++) {
      largest = Math.max(largest, Math.abs(a[i]));
      worst = Math.max(worst, Math.abs(a[i] - b[i]));
    }
    return largest == 0 ? worst : worst / largest;
  }

  /**
   * The node's rates on {@code decoder}: the protocol above; {@code promptLogits} is given the
   * timed prefill's logits (the prompt's last token, on a fresh cache) to read.
   */
  static TokenRates measure(
      QwenDecoder decoder, long[] prompt, int decodeTokens, Consumer<float[]> promptLogits) {
    try (KvCache cache = decoder.newCache()) {
      float[] logits = decoder.forward(prompt, cache);
      for (int i = 0; i < WARMUP_DECODE_TOKENS; i++) {
        logits = decoder.forward(new long[] {Sampler.argmax(logits)}, cache);
      }
    }
    try (KvCache cache = decoder.newCache()) {
      long start = System.nanoTime();
      float[] logits = decoder.forward(prompt, cache);
      double prefillSeconds = (System.nanoTime() - start) / 1e9;
      promptLogits.accept(logits);
      List<Long> greedy = new ArrayList<>();
      for (int i = 0; i < WARMUP_DECODE_TOKENS; i++) {
        greedy.add((long) Sampler.argmax(logits));
        logits = decoder.forward(new long[] {greedy.getLast()}, cache);
      }
      start = System.nanoTime();
      for (int i = 0; i < decodeTokens; i++) {
        greedy.add((long) Sampler.argmax(logits));
        logits = decoder.forward(new long[] {greedy.getLast()}, cache);
      }
      double decodeSeconds = (System.nanoTime() - start) / 1e9;
      return new TokenRates(prompt.length, prefillSeconds, decodeTokens, decodeSeconds, greedy);
    }
  }
}
