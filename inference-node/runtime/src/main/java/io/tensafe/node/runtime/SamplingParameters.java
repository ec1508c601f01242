package io.tensafe.node.runtime;

import io.tensafe.chat.constraint.OutputLanguage;
import java.util.List;

/**
 * How to pick each next token.
 *
 * @param temperature 0 for greedy (argmax); otherwise logits are divided by it, in (0, 2]
 * @param topK keep only the k most likely tokens; 0 for all
 * @param topP keep the smallest set of most likely tokens whose probability reaches p, in (0, 1]
 * @param seed the sampler's seed: the same seed, prompt and model give the same tokens; a request
 *     that gives none is sampled with a fresh one ({@link #seedOrFresh})
 * @param maxTokens tokens to generate at most, ≥ 1
 * @param stop strings that end generation; the output stops before the first one
 * @param format the language the output must be a word of (a {@code response_format}'s JSON, ADR
 *     0031, or forced tool calls, ADR 0043), null for free text: each token is drawn only from
 *     those that keep the text a valid prefix, and generation ends (on an end-of-sequence id) only
 *     once the word is complete
 * @param endAfter a text after whose first occurrence generation ends, finish reason "stop", the
 *     text included (the first tool call's closing tag under {@code parallel_tool_calls: false});
 *     null for none
 * @param logprobs {@link #NO_LOGPROBS} for none, else each generated token's log-probability with
 *     this many of the step's most likely tokens, 0 to {@link LogProbabilities#MAX_TOP} (OpenAI's
 *     {@code logprobs: true} and {@code top_logprobs}; ADR 0044)
 */
public record SamplingParameters(
    double temperature,
    int topK,
    double topP,
    long seed,
    int maxTokens,
    List<String> stop,
    OutputLanguage format,
    String endAfter,
    int logprobs) {
  /** {@link #logprobs} when a request asks for none. */
  public static final int NO_LOGPROBS = -1;

  /** Free text: no {@code format}, no log-probabilities. */
  public SamplingParameters(
      double temperature, int topK, double topP, long seed, int maxTokens, List<String> stop) {
    this(temperature, topK, topP, seed, maxTokens, stop, null, null);
  }

  /** No log-probabilities. */
  public SamplingParameters(
      double temperature,
      int topK,
      double topP,
      long seed,
      int maxTokens,
      List<String> stop,
      OutputLanguage format,
      String endAfter) {
    this(temperature, topK, topP, seed, maxTokens, stop, format, endAfter, NO_LOGPROBS);
  }

  /** These parameters with {@code logprobs} ({@link #NO_LOGPROBS}, or 0 to 20 alternatives). */
  public SamplingParameters withLogprobs(int logprobs) {
    return new SamplingParameters(
        temperature, topK, topP, seed, maxTokens, stop, format, endAfter, logprobs);
  }

  /** These parameters with the sampler seeded by {@code seed}. */
  public SamplingParameters withSeed(long seed) {
    return new SamplingParameters(
        temperature, topK, topP, seed, maxTokens, stop, format, endAfter, logprobs);
  }

  /** These parameters with output constrained to {@code format} (null: free text). */
  public SamplingParameters withFormat(OutputLanguage format) {
    return new SamplingParameters(
        temperature, topK, topP, seed, maxTokens, stop, format, endAfter, logprobs);
  }

  /** These parameters ending after the first {@code endAfter} (null: not). */
  public SamplingParameters withEndAfter(String endAfter) {
    return new SamplingParameters(
        temperature, topK, topP, seed, maxTokens, stop, format, endAfter, logprobs);
  }

  public SamplingParameters {
    if (!(temperature >= 0 && temperature <= 2)) {
      throw new IllegalArgumentException("temperature must be in [0, 2], was " + temperature);
    }
    if (topK < 0) {
      throw new IllegalArgumentException("top_k must be >= 0, was " + topK);
    }
    if (!(topP > 0 && topP <= 1)) {
      throw new IllegalArgumentException("top_p must be in (0, 1], was " + topP);
    }
    if (maxTokens < 1) {
      throw new IllegalArgumentException("max_tokens must be >= 1, was " + maxTokens);
    }
    stop = List.copyOf(stop);
    if (stop.size() > 4 || stop.stream().anyMatch(String::isEmpty)) {
      throw new IllegalArgumentException("at most 4 non-empty stop strings");
    }
    if (endAfter != null && endAfter.isEmpty()) {
      throw new IllegalArgumentException("endAfter is null or non-empty");
    }
    if (logprobs < NO_LOGPROBS || logprobs > LogProbabilities.MAX_TOP) {
      throw new IllegalArgumentException(
          "top_logprobs must be in [0, " + LogProbabilities.MAX_TOP + "], was " + logprobs);
    }
  }

  /** Greedy decoding of at most {@code maxTokens}. */
  public static SamplingParameters greedy(int maxTokens) {
    return new SamplingParameters(0, 0, 1, 0, maxTokens, List.of());
  }

  private static final java.security.SecureRandom SEEDS = new java.security.SecureRandom();

  /**
   * The seed a request gave, or a fresh random one when it gave none (as OpenAI samples): two
   * unseeded requests at a temperature above 0 do not repeat each other, and a seeded one repeats.
   */
  public static long seedOrFresh(Long given) {
    return given != null ? given : SEEDS.nextLong();
  }
}
