package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.tokens.PromptTokenizer;

/**
 * The completion text the gateway read from a node, how much of it reached the client, and their
 * tokens as the marketplace counts them: the model's own tokenizer over the concatenated text, as
 * the text's publisher would. So a request is billed for what the client was sent, whatever the
 * node claims, and its DP bound counts everything read. What was relayed is always a prefix of what
 * was read (a piece is passed on after it is read). Thread-confined to the request's thread.
 */
final class RelayedText {
  private final PromptTokenizer tokenizer;
  private final StringBuilder text = new StringBuilder();
  private int relayedChars;
  private int relayedPieces;

  RelayedText(PromptTokenizer tokenizer) {
    this.tokenizer = tokenizer;
  }

  /** Records a piece read from the node. */
  void read(String piece) {
    text.append(piece);
  }

  /** Records that everything read so far reached the client, as one more piece. */
  void relayedAll() {
    relayedExcept(0);
  }

  /**
   * Records that everything read so far but its last {@code heldChars} chars (held back, not yet
   * sent) reached the client, as one more piece. Range of {@code heldChars}: 0..the text read.
   */
  void relayedExcept(int heldChars) {
    if (heldChars < 0 || heldChars > text.length()) {
      throw new IllegalArgumentException(
          "held " + heldChars + " chars of " + text.length() + " read");
    }
    relayedChars = Math.max(relayedChars, text.length() - heldChars);
    relayedPieces++;
  }

  /** Pieces relayed so far. */
  int pieces() {
    return relayedPieces;
  }

  /** Everything read so far. */
  String text() {
    return text.toString();
  }

  /** Tokens of the text relayed so far; 0..its UTF-8 bytes. */
  int tokens() {
    return relayedChars == 0 ? 0 : tokenizer.count(text.substring(0, relayedChars));
  }

  /** Tokens of everything read, ≥ {@link #tokens}. */
  int readTokens() {
    return relayedChars == text.length() ? tokens() : tokenizer.count(text.toString());
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
