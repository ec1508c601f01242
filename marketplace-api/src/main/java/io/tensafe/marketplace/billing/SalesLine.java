package io.tensafe.marketplace.billing;

/**
 * A creator's sales of one adapter version in one currency over a period. Money in micro-units.
 *
 * @param creatorMicros the creator's share; {@code creatorMicros + platformMicros = amountMicros}
 */
public record SalesLine(
    String adapterId,
    String version,
    String currency,
    long requests,
    long promptTokens,
    long completionTokens,
    long amountMicros,
    long creatorMicros,
    long platformMicros) {}
