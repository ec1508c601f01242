package io.tensafe.tgsp.crypto;

import java.security.PublicKey;
import java.util.regex.Pattern;

/**
 * A creator's hybrid verification key: Ed25519 and ML-DSA-65. A signature is valid only if both
 * halves verify.
 *
 * @param creatorId the creator's id ({@link #ID_PATTERN})
 */
public record CreatorPublicKey(String creatorId, PublicKey ed25519, PublicKey mlDsa65) {
  /** Creator and fleet ids: lowercase letters, digits, '.', '_', '-'; 1 to 64 characters. */
  public static final Pattern ID_PATTERN = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

  public CreatorPublicKey {
    requireId(creatorId, "creator id");
  }

  /**
   * 32 lowercase hex digits: the first 16 bytes of SHA-256 over both encoded public keys (framed,
   * domain-separated). Derived, so a key file cannot claim another key's id.
   */
  public String keyId() {
    return keyId(KEY_ID_LABEL, ed25519, mlDsa65);
  }

  static final String KEY_ID_LABEL = "TGSP-v2 creator key";

  static String keyId(String label, PublicKey first, PublicKey second) {
    byte[] digest = Frames.hash(label, first.getEncoded(), second.getEncoded());
    return Frames.hex(java.util.Arrays.copyOf(digest, 16));
  }

  static void requireId(String id, String what) {
    if (id == null || !ID_PATTERN.matcher(id).matches()) {
      throw new IllegalArgumentException(
          what + " \"" + id + "\" must match " + ID_PATTERN.pattern());
    }
  }
}
