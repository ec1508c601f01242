package io.tensafe.marketplace.openai;

import java.nio.charset.StandardCharsets;

/**
 * What a request is billed for, from what the gateway itself knows rather than what the node
 * claims: the prompt's tokens as the marketplace counted them with the nodes' own tokenizer ({@code
 * tokens.PromptTokenizer}), and completion tokens at most the client's {@code max_tokens} and at
 * most one per UTF-8 byte relayed to the client, plus the bytes of the longest stop string (the
 * cut-off text), plus one (the end-of-turn token, which renders as no text). Every byte-level BPE
 * token renders as at least one byte, so an honest node's counts always fit; a node that claims
 * more is billed the bound.
 *
 * @param promptTokens the prompt's tokens as the marketplace counted them, ≥ 0
 * @param maxCompletionTokens 1..{@value CompletionRequest#MAX_TOKENS}
 * @param stopBytes UTF-8 bytes of the longest stop string, ≥ 0
 */
record BillableTokens(int promptTokens, int maxCompletionTokens, int stopBytes) {
  static BillableTokens of(CompletionRequest r, int promptTokens) {
    int stop = 0;
    for (String s : r.stop()) {
      stop = Math.max(stop, s.getBytes(StandardCharsets.UTF_8).length);
    }
    return new BillableTokens(promptTokens, r.maxTokens(), stop);
  }

  /**
   * The prompt tokens billed, whatever the node claims: the marketplace's count (an honest node
   * claims the same: it encodes the same text with the same tokenizer).
   */
  int prompt(int claimed) {
    return promptTokens;
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
