package io.tensafe.marketplace.fleet;

import java.time.OffsetDateTime;

/**
 * A registration challenge: a nonce wrapped to the fleet's public key (hybrid X25519 + ML-KEM-768,
 * {@code tgsp.crypto.FleetChallenge}), bound to {@code challengeId} and the node name. Binary
 * fields are base64url without padding.
 *
 * @param challengeId answer with this id in {@link FleetProof}
 * @param fleetKeyId the fleet key it was wrapped to (32 hex digits)
 * @param x25519Ephemeral the one-time X25519 public key (44 bytes)
 * @param mlKemCiphertext the ML-KEM-768 encapsulation (1088 bytes)
 * @param wrappedNonce the AES-256-GCM-wrapped nonce (48 bytes)
 * @param expiresAt answer before this instant; each challenge answers one registration
 */
public record NodeChallenge(
    String challengeId,
    String fleetKeyId,
    String x25519Ephemeral,
    String mlKemCiphertext,
    String wrappedNonce,
    OffsetDateTime expiresAt) {}
