package io.tensafe.marketplace.adapter;

import java.time.OffsetDateTime;

/**
 * An adapter version as its creator (and, published, the catalogue) shows it. Prices are
 * micro-units per 1000 tokens: the price in force now, and the next scheduled one, if any, with the
 * instant it takes effect (a rise is announced at least the notice period ahead). {@code
 * newestFrom} is when it serves (or began to serve) requests naming its adapter without a version,
 * and {@code auto}, as its newest version: a version priced above the one it replaces is announced
 * the same notice period ahead (ADR 0009); null for one never published.
 */
public record VersionView(
    String adapterId,
    String version,
    String state,
    String baseModel,
    int rank,
    String domain,
    String currency,
    long promptMicrosPer1kTokens,
    long completionMicrosPer1kTokens,
    String packageSha256,
    long packageBytes,
    OffsetDateTime uploadedAt,
    Long nextPromptMicrosPer1kTokens,
    Long nextCompletionMicrosPer1kTokens,
    OffsetDateTime nextPriceFrom,
    OffsetDateTime newestFrom) {}
