package io.tensafe.marketplace.fleet;

import io.tensafe.marketplace.validation.PublicId;
import jakarta.validation.constraints.NotNull;

/**
 * A node asks to prove that it holds {@code fleetId}'s private key before registering as {@code
 * name}.
 */
public record NodeChallengeRequest(
    @NotNull @PublicId String fleetId, @NotNull @PublicId String name) {}
