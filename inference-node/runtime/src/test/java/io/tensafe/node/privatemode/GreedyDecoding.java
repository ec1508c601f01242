package io.tensafe.node.privatemode;

import io.tensafe.node.runtime.AdapterDeltas;
import io.tensafe.node.runtime.KvCache;
import io.tensafe.node.runtime.QwenDecoder;
import io.tensafe.node.runtime.Sampler;

/**
 * A prompt's prefill logits and the greedy tokens after them, for tests that compare adapter paths.
 */
record GreedyDecoding(float[] prefill, long[] tokens) {
  /** {@code n} greedy tokens after {@code prompt}, deltas from {@code lora} (null: none). */
  static GreedyDecoding of(QwenDecoder decoder, long[] prompt, AdapterDeltas lora, int n) {
    long[] out = new long[n];
    try (KvCache cache = decoder.newCache()) {
      float[] prefill = decoder.forward(prompt, cache, lora);
      float[] logits = prefill;
      for (int i = 0; i < n; i++) {
        out[i] = Sampler.argmax(logits);
        if (i + 1 < n) {
          logits = decoder.forward(new long[] {out[i]}, cache, lora);
        }
      }
      return new GreedyDecoding(prefill, out);
    }
  }

  /** The largest absolute difference between {@code a} and {@code b}, entry by entry. */
  static double maxDistance(float[] a, float[] b) {
    double max = 0;
    for (int i = 0; i < a.length; i++) {
      max = Math.max(max, Math.abs(a[i] - b[i]));
    }
    return max;
  }
}
