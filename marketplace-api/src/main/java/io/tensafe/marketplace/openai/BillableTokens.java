package io.tensafe.marketplace.openai;

import java.nio.charset.StandardCharsets;

/**
 * The most a request can be billed for, from what the gateway itself knows rather than what the
 * node claims: prompt tokens at most the prompt's bound ({@link
 * CompletionRequest#promptTokenBound}, the UTF-8 bytes of the rendered prompt, which a byte-level
 * BPE tokenizer never exceeds), and completion tokens at most the client's {@code max_tokens} and
 * at most one per UTF-8 byte relayed to the client, plus the bytes of the longest stop string (the
 * cut-off text), plus one (the end-of-turn token, which renders as no text). Every byte-level BPE
 * token renders as at least one byte, so an honest node's counts always fit; a node that claims
 * more is billed the bound.
 *
 * @param maxPromptTokens ≥ 1
 * @param maxCompletionTokens 1..{@value CompletionRequest#MAX_TOKENS}
 * @param stopBytes UTF-8 bytes of the longest stop string, ≥ 0
 */
record BillableTokens(long maxPromptTokens, int maxCompletionTokens, int stopBytes) {
  static BillableTokens of(CompletionRequest r) {
    int stop = 0;
    for (String s : r.stop()) {
      stop = Math.max(stop, s.getBytes(StandardCharsets.UTF_8).length);
    }
    return new BillableTokens(r.promptTokenBound(), r.maxTokens(), stop);
  }

  /** A claimed prompt-token count, bounded; range 0..{@code maxPromptTokens}. */
  int prompt(int claimed) {
    return (int) Math.max(0, Math.min(claimed, maxPromptTokens));
  }

  /**
   * A claimed completion-token count, bounded by what was relayed; range 0..{@code
   * maxCompletionTokens}.
   *
   * @param relayedBytes UTF-8 bytes of the completion text passed to the client, ≥ 0
   */
  int completion(int claimed, long relayedBytes) {
    long bound = Math.min(maxCompletionTokens, relayedBytes + stopBytes + 1);
    return (int) Math.max(0, Math.min(claimed, bound));
  }

  /** {@code u} with both counts bounded ({@code dpReleases} is settled against the reservation). */
  NodeUsage bound(NodeUsage u, long relayedBytes) {
    return new NodeUsage(
        prompt(u.promptTokens()), completion(u.completionTokens(), relayedBytes), u.dpReleases());
  }

  /** UTF-8 bytes of {@code text}. */
  static long bytes(CharSequence text) {
    return text.toString().getBytes(StandardCharsets.UTF_8).length;
  }
}
