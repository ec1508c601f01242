package io.tensafe.node.runtime;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One generated token's log-probability under the model, and the most likely tokens at its step
 * (OpenAI's {@code choices[].logprobs.content[]} entry, ADR 0044). The probabilities are the
 * model's own: log-softmax of the raw logits, before temperature, top-k, top-p and any constraint's
 * mask ({@link LogProbabilities}).
 *
 * @param token the token's text as it appears in the answer: the new text its decoding added; empty
 *     for a token that ends inside a multi-byte character (the token completing the character
 *     carries it), so the entries' texts concatenate to the answer's text
 * @param logprob the natural log of the token's probability, ≤ 0
 * @param top the most likely tokens at this step, most likely first (ties: the lower id first), as
 *     many as asked (0 to {@link LogProbabilities#MAX_TOP}); each decoded alone
 */
public record TokenLogprob(String token, double logprob, List<Alternative> top) {
  public TokenLogprob {
    top = List.copyOf(top);
    assert logprob <= 0 : "a log-probability is at most 0";
  }

  /** The UTF-8 bytes of {@link #token}. */
  public byte[] bytes() {
    return token.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * One of the most likely tokens at a step.
   *
   * @param token the token decoded alone (a token holding part of a multi-byte character decodes to
   *     U+FFFD)
   * @param logprob the natural log of its probability, ≤ 0
   */
  public record Alternative(String token, double logprob) {
    /** The UTF-8 bytes of {@link #token}. */
    public byte[] bytes() {
      return token.getBytes(StandardCharsets.UTF_8);
    }
  }
}
