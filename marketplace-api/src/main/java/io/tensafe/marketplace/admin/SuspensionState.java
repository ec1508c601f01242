package io.tensafe.marketplace.admin;

/** The suspension state of one thing after an admin changed it. */
public record SuspensionState(String kind, String id, boolean suspended) {}
