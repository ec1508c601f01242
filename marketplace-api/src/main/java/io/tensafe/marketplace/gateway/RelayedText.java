package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.tokens.PromptTokenizer;

/**
 * The completion text the gateway read from a node, how much of it reached the client, and their
 * tokens as the marketplace counts them: the model's own tokenizer over the concatenated text, as
 * the text's publisher would. So a request is billed for what the client was sent, whatever the
 * node claims, and its DP bound counts everything read. What was relayed is a prefix of what was
 * read (a piece is passed on after it is read), or, for an answer re-written before it is passed on
 * (tool calls: only their name and arguments reach the client), the re-written text ({@link
 * #relayedAs}). Thread-confined to the request's thread.
 */
final class RelayedText {
  private final PromptTokenizer tokenizer;
  private final StringBuilder text = new StringBuilder();
  private int relayedChars;
  private int relayedPieces;

  /** What reached the client, once the answer is re-written before it is passed on; else null. */
  private StringBuilder delivered;

  RelayedText(PromptTokenizer tokenizer) {
    this.tokenizer = tokenizer;
  }

  /** Records a piece read from the node. */
  void read(String piece) {
    text.append(piece);
  }

  /** Records that everything read so far reached the client, as one more piece. */
  void relayedAll() {
    relayedChars = text.length();
    relayedPieces++;
  }

  /**
   * Records that {@code text}, written from what was read, reached the client as one more piece:
   * from then on the bill counts the texts passed here, not the text read.
   */
  void relayedAs(String text) {
    if (delivered == null) {
      delivered = new StringBuilder();
    }
    delivered.append(text);
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
    if (delivered != null) {
      return delivered.isEmpty() ? 0 : tokenizer.count(delivered.toString());
    }
    return relayedChars == 0 ? 0 : tokenizer.count(text.substring(0, relayedChars));
  }

  /** Tokens of everything read, ≥ {@link #tokens}. */
  int readTokens() {
    return delivered == null && relayedChars == text.length()
        ? tokens()
        : Math.max(tokens(), tokenizer.count(text.toString()));
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
