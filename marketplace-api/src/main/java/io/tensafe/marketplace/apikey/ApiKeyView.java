package io.tensafe.marketplace.apikey;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * An API key as listed: never the secret, never its hash.
 *
 * @param adapters the adapter ids the key is limited to; empty means every published adapter
 * @param organisation the slug of the organisation the key belongs to and bills
 * @param maxPrice its price cap, or null
 */
public record ApiKeyView(
    String prefix,
    String organisation,
    String name,
    List<String> adapters,
    OffsetDateTime createdAt,
    OffsetDateTime revokedAt,
    PriceCap maxPrice) {}
