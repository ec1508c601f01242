package io.tensafe.node.tools.bench;

import java.util.List;

/**
 * One runner's speed on one holding of a model, measured by {@link AnchorProtocol}'s protocol: a
 * prompt's prefill on a fresh KV cache, then greedy decode steps on that cache.
 *
 * @param prefillTokens tokens of the timed prompt (≥ 1)
 * @param prefillSeconds wall-clock seconds of its one forward pass (> 0)
 * @param decodeTokens greedy tokens timed after it (≥ 1), one forward pass each
 * @param decodeSeconds wall-clock seconds of those passes together (> 0)
 * @param greedy every greedy token chosen after the timed prefill, untimed warm-up ones first
 */
record TokenRates(
    int prefillTokens,
    double prefillSeconds,
    int decodeTokens,
    double decodeSeconds,
    List<Long> greedy) {
  TokenRates {
    if (prefillTokens < 1 || decodeTokens < 1 || !(prefillSeconds > 0) || !(decodeSeconds > 0)) {
      throw new IllegalArgumentException(
          "rates need tokens >= 1 and seconds > 0, got prefill "
              + prefillTokens
              + " in "
              + prefillSeconds
              + " s, decode "
              + decodeTokens
              + " in "
              + decodeSeconds
              + " s");
    }
    greedy = List.copyOf(greedy);
  }

  /** Prompt tokens per second of the prefill. */
  double prefillTokensPerS() {
    return prefillTokens / prefillSeconds;
  }

  /** Tokens per second of the timed decode steps. */
  double decodeTokensPerS() {
    return decodeTokens / decodeSeconds;
  }

  /** How many greedy tokens from the first are equal in this and {@code other}. */
  int leadingGreedyEqual(TokenRates other) {
    int n = Math.min(greedy.size(), other.greedy.size());
    int equal = 0;
    while (equal < n && greedy.get(equal).equals(other.greedy.get(equal))) {
      equal++;
    }
    return equal;
  }
}
