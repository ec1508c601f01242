package io.tensafe.tgsp.crypto;

import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;

/** A node fleet's hybrid decapsulation key; held by the fleet's nodes only. */
public final class FleetKeyPair {
  private final FleetPublicKey publicKey;
  private final PrivateKey x25519;
  private final PrivateKey mlKem768;

  FleetKeyPair(FleetPublicKey publicKey, PrivateKey x25519, PrivateKey mlKem768) {
    this.publicKey = publicKey;
    this.x25519 = x25519;
    this.mlKem768 = mlKem768;
  }

  /** A fresh key pair; {@code random} must be a CSPRNG outside tests. */
  public static FleetKeyPair generate(String fleetId, SecureRandom random) {
    KeyPair x = Algorithms.X25519.generate(random);
    KeyPair ml = Algorithms.ML_KEM_768.generate(random);
    return new FleetKeyPair(
        new FleetPublicKey(fleetId, x.getPublic(), ml.getPublic()),
        x.getPrivate(),
        ml.getPrivate());
  }

  public FleetPublicKey publicKey() {
    return publicKey;
  }

  PrivateKey x25519() {
    return x25519;
  }

  PrivateKey mlKem768() {
    return mlKem768;
  }
}
