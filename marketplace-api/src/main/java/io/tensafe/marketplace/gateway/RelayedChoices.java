package io.tensafe.marketplace.gateway;

import io.tensafe.marketplace.tokens.PromptTokenizer;
import java.util.List;

/**
 * The {@link RelayedText} of each choice of one request (OpenAI's {@code n}, ADR 0044), and their
 * totals: a request is billed the sum of what each of its choices relayed, each choice counted
 * within the client's {@code max_tokens}, so the total stays within {@code n × max_tokens}, the
 * bound its admission reserved for. Thread-confined to the request's thread.
 */
final class RelayedChoices {
  private final RelayedText[] choices;

  /**
   * @param count choices, ≥ 1
   */
  RelayedChoices(PromptTokenizer tokenizer, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("a request has at least one choice");
    }
    choices = new RelayedText[count];
    for (int i = 0; i < count; i++) {
      choices[i] = new RelayedText(tokenizer);
    }
  }

  int count() {
    return choices.length;
  }

  /** Choice {@code index}'s text. */
  RelayedText choice(int index) {
    return choices[index];
  }

  /** Pieces relayed so far, over every choice. */
  int pieces() {
    int sum = 0;
    for (RelayedText c : choices) {
      sum += c.pieces();
    }
    return sum;
  }

  /** Tokens relayed so far, over every choice, each at most {@code maxTokens}. */
  int tokens(int maxTokens) {
    int sum = 0;
    for (RelayedText c : choices) {
      sum += Math.min(maxTokens, c.tokens());
    }
    return sum;
  }

  /** Tokens read, per choice (each at most {@code maxTokens}), ≥ the relayed ones. */
  int[] readTokens(int maxTokens) {
    int[] out = new int[choices.length];
    for (int i = 0; i < choices.length; i++) {
      out[i] = Math.min(maxTokens, choices[i].readTokens());
    }
    return out;
  }

  /** Whether no choice read any text. */
  boolean empty() {
    for (RelayedText c : choices) {
      if (!c.text().isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** Each choice's text read. */
  List<String> texts() {
    return java.util.Arrays.stream(choices).map(RelayedText::text).toList();
  }

  /**
   * A finished request's counts over its choices.
   *
   * @param billed the completion tokens billed: the sum of {@link #completionTokens}
   * @param read the tokens the node made, for DP: per choice the larger of what was billed and what
   *     was read, summed; ≥ {@code billed}
   * @param ran the choices that made any token
   */
  record Totals(int billed, int read, int ran) {}

  /** The totals of a request whose choices ended with {@code finishReasons}. */
  Totals totals(List<String> finishReasons, int maxTokens) {
    int[] billed = completionTokens(finishReasons, maxTokens);
    int[] read = readTokens(maxTokens);
    int billedSum = 0;
    int readSum = 0;
    int ran = 0;
    for (int i = 0; i < choices.length; i++) {
      int made = Math.max(billed[i], read[i]);
      billedSum += billed[i];
      readSum += made;
      ran += made > 0 ? 1 : 0;
    }
    return new Totals(billedSum, readSum, ran);
  }

  /**
   * The completion tokens to bill, per choice: its relayed text's tokens plus the end-of-turn token
   * when it stopped ({@link RelayedText#completionTokens}), at most {@code maxTokens}; 0 for a
   * choice without text (ADR 0038: an answer without text earns nothing).
   *
   * @param finishReasons each choice's finish reason, in order
   */
  int[] completionTokens(List<String> finishReasons, int maxTokens) {
    int[] out = new int[choices.length];
    for (int i = 0; i < choices.length; i++) {
      out[i] =
          choices[i].text().isEmpty()
              ? 0
              : choices[i].completionTokens(finishReasons.get(i), maxTokens);
    }
    return out;
  }
}
