package io.tensafe.kernels.protocol;

import io.tensafe.kernels.ring.Samplers;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The c1 seeds of a private session's uploads (ADR 0025, ADR 0037): {@code HMAC-SHA256(key,
 * "tensafe c1 v2" ‖ logN ‖ nonce ‖ sequence ‖ index)}, where the key is the node's 32 random bytes
 * for the session, sent to the client when the session opens, and the nonce the client's 16 fresh
 * bytes for the frame, sent in the frame. The client encrypts ciphertext {@code index} of frame
 * {@code sequence} with exactly this seed and the node expands the same, so an upload carries only
 * c0, its c1 is uniform and fresh for every ciphertext, and the client cannot choose it (the key is
 * the node's).
 *
 * <p>The nonce keeps every c1 unknown to the node until the frame arrives: with c1 predictable from
 * the key alone, a node could craft a round-one answer's c1 so that the share the client
 * re-encrypts under that c1 gives away coefficients of its secret key (ADR 0037 shows the algebra;
 * {@code KeyRecoveryAttackTest}). The key need not be secret (an RLWE sample's c1 is public); it
 * must be the node's, fresh per session. Immutable and thread-safe.
 */
public final class UploadSeeds {
  /** The key's length in bytes. */
  public static final int KEY_BYTES = 32;

  private static final byte[] DOMAIN =
      "tensafe c1 v2".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private final byte[] key;

  /**
   * @throws IllegalArgumentException if the key is not {@link #KEY_BYTES} long
   */
  public UploadSeeds(byte[] key) {
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "an upload seed key has " + KEY_BYTES + " bytes, not " + key.length);
    }
    this.key = key.clone();
  }

  /** The key's bytes, to send to the client. */
  public byte[] key() {
    return key.clone();
  }

  /** Bytes of a frame's nonce. */
  public static final int NONCE_BYTES = 16;

  /**
   * The seed of ciphertext {@code index} (≥ 0) of frame {@code sequence} (≥ 0), whose nonce is
   * {@code nonce} ({@link #NONCE_BYTES} bytes), in the ring of log2 degree {@code logN}.
   */
  public byte[] seed(int logN, byte[] nonce, long sequence, int index) {
    if (sequence < 0 || index < 0) {
      throw new IllegalArgumentException("sequence and index must be non-negative");
    }
    if (nonce.length != NONCE_BYTES) {
      throw new IllegalArgumentException("a frame nonce has " + NONCE_BYTES + " bytes");
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update(DOMAIN);
      mac.update((byte) logN);
      mac.update(nonce);
      mac.update(ByteBuffer.allocate(12).putLong(sequence).putInt(index).array());
      return Arrays.copyOf(mac.doFinal(), Samplers.SEED_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
