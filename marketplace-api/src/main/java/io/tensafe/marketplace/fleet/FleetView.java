package io.tensafe.marketplace.fleet;

import java.time.OffsetDateTime;

/**
 * A fleet as anyone may see it: the public key file creators encrypt packages to.
 *
 * @param publicKeyFile the canonical fleet public key file (X25519 + ML-KEM-768), to save as
 *     fleet.pub and pass to {@code tgsp pack --recipient}
 */
public record FleetView(
    String fleetId, String keyId, String publicKeyFile, OffsetDateTime createdAt) {
  static FleetView of(NodeFleet f) {
    return new FleetView(f.fleetRef, f.keyId, f.document, f.createdAt);
  }
}
