package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.tokens.PromptTokenizer;

/**
 * The completion text the gateway passed on to a client, and its tokens as the marketplace counts
 * them: the model's own tokenizer over the concatenated text, as the text's publisher would. So a
 * request is billed for what the client was sent, whatever the node claims. Thread-confined to the
 * request's thread.
 */
final class RelayedText {
  private final PromptTokenizer tokenizer;
  private final StringBuilder text = new StringBuilder();
  private int pieces;

  RelayedText(PromptTokenizer tokenizer) {
    this.tokenizer = tokenizer;
  }

  /** Records that {@code piece} reached the client. */
  void add(String piece) {
    text.append(piece);
    pieces++;
  }

  /** Pieces recorded so far. */
  int pieces() {
    return pieces;
  }

  /** Tokens of the text relayed so far; 0..its UTF-8 bytes. */
  int tokens() {
    return text.isEmpty() ? 0 : tokenizer.count(text.toString());
  }

  /**
   * The completion tokens to bill for the whole stream: the relayed text's tokens, plus the
   * end-of-turn token (which renders as no text) when the node stopped on it, at most {@code
   * maxTokens}.
   *
   * @param finishReason the node's {@code finish_reason}: {@code stop} when it ended its turn
   */
  int completionTokens(String finishReason, int maxTokens) {
    return Math.min(maxTokens, tokens() + ("stop".equals(finishReason) ? 1 : 0));
  }
}
