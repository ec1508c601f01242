package io.tensafe.marketplace.adapter;

import java.time.OffsetDateTime;

/**
 * A version's lifecycle state after a change: draft, published, unpublished or suspended.
 *
 * @param newestFrom from when it serves requests naming its adapter without a version (and {@code
 *     auto}): its publication, or the end of the price-rise notice when it is priced above the
 *     version it replaces (ADR 0009); null when it has not been published since migration V30
 */
public record VersionState(
    String adapterId, String version, String state, OffsetDateTime newestFrom) {}
