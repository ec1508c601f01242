package io.tensafe.tgsp.crypto;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.KDF;
import javax.crypto.KEM;
import javax.crypto.KeyAgreement;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.HKDFParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Wraps a package's 32-byte data key for one fleet with hybrid X25519 + ML-KEM-768, so that
 * recovering it needs breaking both.
 *
 * <pre>
 * ss_x  = X25519(ephemeral private, fleet X25519 public)
 * ct, ss_m = ML-KEM-768.Encaps(fleet ML-KEM public)
 * salt  = SHA-256(Frames("TGSP-v2 hybrid KEM", ct, ephemeral public, fleet X25519 public,
 *                        fleet ML-KEM public, recipient id))
 * KEK   = HKDF-SHA256(IKM = ss_m ‖ ss_x, salt, info = "TGSP-v2 key wrap", 32 bytes)
 * wrapped = AES-256-GCM(KEK, nonce = 0^96, data key, AAD = Frames("TGSP-v2 wrap", recipient id,
 *                       manifest SHA-256))
 * </pre>
 *
 * The combiner binds both ciphertexts and both public keys; the AAD binds the recipient and the
 * package's manifest, so an entry cannot be moved to another package or recipient. The all-zero
 * nonce is safe because every KEK is used once (fresh ephemeral key and encapsulation).
 */
public final class HybridKeyWrap {
  /** Data keys are AES-256 keys. */
  public static final int DATA_KEY_BYTES = 32;

  private HybridKeyWrap() {}

  public static RecipientEntry wrap(
      FleetPublicKey fleet, byte[] dataKey, byte[] manifestSha256, SecureRandom random) {
    if (dataKey.length != DATA_KEY_BYTES) {
      throw new IllegalArgumentException("data key must be 32 bytes");
    }
    try {
      KeyPair ephemeral = Algorithms.X25519.generate(random);
      byte[] ssX = agree(ephemeral.getPrivate(), fleet.x25519());
      KEM.Encapsulated encapsulated =
          KEM.getInstance("ML-KEM").newEncapsulator(fleet.mlKem768(), random).encapsulate();
      byte[] ephemeralBytes = ephemeral.getPublic().getEncoded();
      SecretKey kek =
          kek(
              encapsulated.key().getEncoded(),
              ssX,
              encapsulated.encapsulation(),
              ephemeralBytes,
              fleet);
      Cipher cipher = gcm(Cipher.ENCRYPT_MODE, kek, fleet.keyId(), manifestSha256);
      return new RecipientEntry(
          fleet.keyId(), ephemeralBytes, encapsulated.encapsulation(), cipher.doFinal(dataKey));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("hybrid key wrap failed", e);
    }
  }

  /**
   * Recovers the data key.
   *
   * @throws KeyUnwrapException if the entry was not made for this key, or it or the manifest hash
   *     was altered
   */
  public static byte[] unwrap(FleetKeyPair fleet, RecipientEntry entry, byte[] manifestSha256)
      throws KeyUnwrapException {
    FleetPublicKey pub = fleet.publicKey();
    try {
      PublicKey ephemeral = Algorithms.X25519.publicKey(entry.x25519Ephemeral());
      byte[] ssX = agree(fleet.x25519(), ephemeral);
      byte[] ssM =
          KEM.getInstance("ML-KEM")
              .newDecapsulator(fleet.mlKem768())
              .decapsulate(entry.mlKemCiphertext())
              .getEncoded();
      SecretKey kek = kek(ssM, ssX, entry.mlKemCiphertext(), entry.x25519Ephemeral(), pub);
      return gcm(Cipher.DECRYPT_MODE, kek, entry.recipientId(), manifestSha256)
          .doFinal(entry.wrappedKey());
    } catch (GeneralSecurityException | KeyFileException e) {
      throw new KeyUnwrapException(
          "the data key for recipient "
              + entry.recipientId()
              + " does not unwrap with fleet key "
              + pub.keyId()
              + " (wrong key, or the entry or manifest was altered)",
          e);
    }
  }

  private static byte[] agree(PrivateKey own, PublicKey peer) throws GeneralSecurityException {
    KeyAgreement agreement = KeyAgreement.getInstance("X25519");
    agreement.init(own);
    agreement.doPhase(peer, true);
    return agreement.generateSecret(); // the JDK refuses an all-zero (small-order) result
  }

  private static SecretKey kek(
      byte[] ssM, byte[] ssX, byte[] mlKemCiphertext, byte[] ephemeral, FleetPublicKey fleet)
      throws GeneralSecurityException {
    byte[] salt =
        Frames.hash(
            "TGSP-v2 hybrid KEM",
            mlKemCiphertext,
            ephemeral,
            fleet.x25519().getEncoded(),
            fleet.mlKem768().getEncoded(),
            Frames.utf8(fleet.keyId()));
    byte[] ikm = new byte[ssM.length + ssX.length];
    System.arraycopy(ssM, 0, ikm, 0, ssM.length);
    System.arraycopy(ssX, 0, ikm, ssM.length, ssX.length);
    byte[] key =
        KDF.getInstance("HKDF-SHA256")
            .deriveData(
                HKDFParameterSpec.ofExtract()
                    .addIKM(ikm)
                    .addSalt(salt)
                    .thenExpand(Frames.utf8("TGSP-v2 key wrap"), 32));
    return new SecretKeySpec(key, "AES");
  }

  private static Cipher gcm(int mode, SecretKey kek, String recipientId, byte[] manifestSha256)
      throws GeneralSecurityException {
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(mode, kek, new GCMParameterSpec(128, new byte[12]));
    cipher.updateAAD(Frames.encode("TGSP-v2 wrap", Frames.utf8(recipientId), manifestSha256));
    return cipher;
  }
}
