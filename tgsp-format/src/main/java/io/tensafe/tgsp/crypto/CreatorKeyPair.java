package io.tensafe.tgsp.crypto;

import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;

/**
 * A creator's hybrid signing key. The private halves never leave this package except through {@link
 * KeyFiles}, which writes them to a file only its owner can read.
 */
public final class CreatorKeyPair {
  private final CreatorPublicKey publicKey;
  private final PrivateKey ed25519;
  private final PrivateKey mlDsa65;

  CreatorKeyPair(CreatorPublicKey publicKey, PrivateKey ed25519, PrivateKey mlDsa65) {
    this.publicKey = publicKey;
    this.ed25519 = ed25519;
    this.mlDsa65 = mlDsa65;
  }

  /** A fresh key pair; {@code random} must be a CSPRNG outside tests. */
  public static CreatorKeyPair generate(String creatorId, SecureRandom random) {
    KeyPair ed = Algorithms.ED25519.generate(random);
    KeyPair ml = Algorithms.ML_DSA_65.generate(random);
    return new CreatorKeyPair(
        new CreatorPublicKey(creatorId, ed.getPublic(), ml.getPublic()),
        ed.getPrivate(),
        ml.getPrivate());
  }

  public CreatorPublicKey publicKey() {
    return publicKey;
  }

  PrivateKey ed25519() {
    return ed25519;
  }

  PrivateKey mlDsa65() {
    return mlDsa65;
  }
}
