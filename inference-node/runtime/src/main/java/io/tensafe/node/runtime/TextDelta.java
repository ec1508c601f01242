package io.tensafe.node.runtime;

/**
 * A piece of streamed text and the token counts it completes, so that whoever forwards the stream
 * knows how many tokens the text it passed on stands for (and can bill exactly that much if the
 * stream breaks).
 *
 * @param text the new text, never empty
 * @param promptTokens tokens in the prompt, ≥ 1
 * @param completionTokens tokens generated so far, this piece's included, ≥ 1
 */
public record TextDelta(String text, int promptTokens, int completionTokens) {}
