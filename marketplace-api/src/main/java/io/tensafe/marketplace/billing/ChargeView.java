package io.tensafe.marketplace.billing;

import java.time.OffsetDateTime;

/** One ledger row as the API shows it. Money in micro-units of {@code currency}. */
public record ChargeView(
    String requestId,
    String adapterId,
    String version,
    String currency,
    long promptTokens,
    long completionTokens,
    long promptMicrosPer1kTokens,
    long completionMicrosPer1kTokens,
    int takeBasisPoints,
    long amountMicros,
    long creatorMicros,
    long platformMicros,
    OffsetDateTime startedAt) {}
