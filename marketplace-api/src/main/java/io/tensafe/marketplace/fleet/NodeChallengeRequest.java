package io.tensafe.marketplace.fleet;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * A node asks to prove that it holds {@code fleetId}'s private key before registering as {@code
 * name}.
 */
public record NodeChallengeRequest(
    @NotNull @Pattern(regexp = "[a-z0-9][a-z0-9._-]{0,63}") String fleetId,
    @NotNull @Pattern(regexp = "[a-z0-9][a-z0-9._-]{0,63}") String name) {}
