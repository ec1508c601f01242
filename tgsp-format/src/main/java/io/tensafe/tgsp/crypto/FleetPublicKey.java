package io.tensafe.tgsp.crypto;

import java.security.PublicKey;

/**
 * A node fleet's hybrid key-encapsulation key: X25519 and ML-KEM-768. The marketplace publishes it;
 * only the fleet's nodes hold the private half. Its {@link #keyId()} is the recipient id in
 * packages.
 *
 * @param fleetId the fleet's id (same rules as a creator id)
 */
public record FleetPublicKey(String fleetId, PublicKey x25519, PublicKey mlKem768) {
  public FleetPublicKey {
    CreatorPublicKey.requireId(fleetId, "fleet id");
  }

  /** 32 lowercase hex digits derived from both public keys; the recipient id in a package. */
  public String keyId() {
    return CreatorPublicKey.keyId(KEY_ID_LABEL, x25519, mlKem768);
  }

  static final String KEY_ID_LABEL = "TGSP-v2 fleet key";
}
