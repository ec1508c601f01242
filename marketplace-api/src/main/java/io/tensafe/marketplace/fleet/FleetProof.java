package io.tensafe.marketplace.fleet;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * A node's answer to a registration challenge ({@code POST /api/node/register/challenge}): the
 * nonce it unwrapped with the fleet's private key.
 *
 * @param challengeId the challenge's id (a UUID)
 * @param nonce the 32-byte nonce, base64url without padding (43 characters)
 */
public record FleetProof(
    @NotNull @Pattern(regexp = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        String challengeId,
    @NotNull @Pattern(regexp = "[A-Za-z0-9_-]{43}") String nonce) {
  @Override
  public String toString() {
    return "FleetProof[" + challengeId + "]";
  }
}
