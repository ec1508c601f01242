package io.tensafe.marketplace.adapter;

import java.time.OffsetDateTime;

/** An adapter version as its creator sees it. Prices are micro-units per 1000 tokens. */
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
    OffsetDateTime uploadedAt) {}
