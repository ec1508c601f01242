package io.tensafe.node.runtime;

/**
 * The result of one generation.
 *
 * @param text the generated text, without any stop string or end-of-turn token
 * @param promptTokens tokens in the prompt
 * @param completionTokens tokens generated (those the decoder ran, the stopping one included)
 * @param finishReason "stop" (end-of-turn token or stop string), "length" (max_tokens reached) or
 *     "cancelled" (the consumer went away)
 */
public record Generation(
    String text, int promptTokens, int completionTokens, String finishReason) {}
