package io.tensafe.node.runtime;

import java.util.List;

/**
 * The result of one generation (one choice of a request).
 *
 * @param text the generated text, without any stop string or end-of-turn token
 * @param promptTokens tokens in the prompt
 * @param completionTokens tokens generated (those the decoder ran, the stopping one included)
 * @param finishReason "stop" (end-of-turn token or stop string), "length" (max_tokens reached) or
 *     "cancelled" (the consumer went away)
 * @param logprobs the log-probability entries of the text's tokens, in order ({@link
 *     LogprobTrail}); null when the parameters asked for none
 */
public record Generation(
    String text,
    int promptTokens,
    int completionTokens,
    String finishReason,
    List<TokenLogprob> logprobs) {
  public Generation {
    logprobs = logprobs == null ? null : List.copyOf(logprobs);
  }

  /** A generation without log-probabilities. */
  public Generation(String text, int promptTokens, int completionTokens, String finishReason) {
    this(text, promptTokens, completionTokens, finishReason, null);
  }

  /**
   * A request's totals over its {@code choices} (one prefill shared, ADR 0044): the prompt once,
   * the completion tokens summed, finish reason "cancelled" if any choice was, else "length" if any
   * was, else "stop"; the text and entries of choice 0.
   */
  public static Generation total(List<Generation> choices) {
    Generation first = choices.getFirst();
    int completion = 0;
    String finish = "stop";
    for (Generation g : choices) {
      completion = Math.addExact(completion, g.completionTokens());
      if (g.finishReason().equals(TextGenerator.CANCELLED)) {
        finish = TextGenerator.CANCELLED;
      } else if (g.finishReason().equals("length") && !finish.equals(TextGenerator.CANCELLED)) {
        finish = "length";
      }
    }
    return new Generation(first.text(), first.promptTokens(), completion, finish, first.logprobs());
  }
}
