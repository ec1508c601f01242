package io.tensafe.marketplace.privatemode;

/**
 * What a private session was billed, from the frames the marketplace relayed.
 *
 * @param promptTokens the prefill's tokens, ≥ 0
 * @param completionTokens 1 once the prefill was served, plus one per decode step served; ≥ 0
 * @param amountMicros the charge in the price's currency, ≥ 0 (0 when nothing was served)
 * @param currency the price's currency, or null when nothing was billed
 * @param epsilonSpent the client's ε spent on this adapter's budget after settling, or -1 when the
 *     reservation was already closed
 */
public record SessionBill(
    int promptTokens,
    long completionTokens,
    long amountMicros,
    String currency,
    double epsilonSpent) {}
