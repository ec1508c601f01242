package io.tensafe.tgsp.crypto;

/**
 * The data key wrapped for one fleet.
 *
 * @param recipientId the fleet key id ({@link FleetPublicKey#keyId()}), 32 hex digits
 * @param x25519Ephemeral the sender's one-time X25519 public key, X.509 encoded (44 bytes)
 * @param mlKemCiphertext the ML-KEM-768 encapsulation (1088 bytes)
 * @param wrappedKey the AES-256-GCM encryption of the 32-byte data key (48 bytes with its tag)
 */
public record RecipientEntry(
    String recipientId, byte[] x25519Ephemeral, byte[] mlKemCiphertext, byte[] wrappedKey) {
  public static final int X25519_EPHEMERAL_BYTES = 44;
  public static final int ML_KEM_CIPHERTEXT_BYTES = 1088;
  public static final int WRAPPED_KEY_BYTES = 48;

  public RecipientEntry {
    if (x25519Ephemeral.length != X25519_EPHEMERAL_BYTES
        || mlKemCiphertext.length != ML_KEM_CIPHERTEXT_BYTES
        || wrappedKey.length != WRAPPED_KEY_BYTES) {
      throw new IllegalArgumentException("recipient entry fields have the wrong sizes");
    }
    x25519Ephemeral = x25519Ephemeral.clone();
    mlKemCiphertext = mlKemCiphertext.clone();
    wrappedKey = wrappedKey.clone();
  }

  @Override
  public byte[] x25519Ephemeral() {
    return x25519Ephemeral.clone();
  }

  @Override
  public byte[] mlKemCiphertext() {
    return mlKemCiphertext.clone();
  }

  @Override
  public byte[] wrappedKey() {
    return wrappedKey.clone();
  }
}
