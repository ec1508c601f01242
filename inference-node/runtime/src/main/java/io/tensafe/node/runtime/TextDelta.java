package io.tensafe.node.runtime;

import java.util.List;

/**
 * A piece of streamed text and the token counts it completes, so that whoever forwards the stream
 * knows how many tokens the text it passed on stands for (and can bill exactly that much if the
 * stream breaks).
 *
 * @param index the choice this piece belongs to (OpenAI's {@code choices[].index}), 0 to n − 1
 * @param text the new text, never empty
 * @param promptTokens tokens in the prompt, ≥ 1
 * @param completionTokens tokens this choice generated so far, this piece's included, ≥ 1
 * @param logprobs the log-probability entries of the tokens whose text starts in this piece ({@link
 *     LogprobTrail}); empty when the request asked for none
 */
public record TextDelta(
    int index, String text, int promptTokens, int completionTokens, List<TokenLogprob> logprobs) {
  public TextDelta {
    logprobs = List.copyOf(logprobs);
  }
}
