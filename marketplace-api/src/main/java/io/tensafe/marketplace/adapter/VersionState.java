package io.tensafe.marketplace.adapter;

/** A version's lifecycle state after a change: draft, published, unpublished or suspended. */
public record VersionState(String adapterId, String version, String state) {}
