package io.tensafe.tgsp.crypto;

import java.security.SecureRandom;

/**
 * Proof that a node holds its fleet's private key, for registration: the marketplace draws a
 * 32-byte nonce and wraps it to the fleet's public key with {@link HybridKeyWrap}, bound to the
 * challenge id and the node name; only a holder of the fleet's private key can unwrap it and send
 * the nonce back. The binding keeps a challenge from being answered for another name or replayed
 * under another id. The marketplace, which never holds a fleet private key, can only check.
 */
public final class FleetChallenge {
  /** Nonces are 32 random bytes. */
  public static final int NONCE_BYTES = HybridKeyWrap.DATA_KEY_BYTES;

  private FleetChallenge() {}

  /**
   * Wraps {@code nonce} (32 bytes) for {@code fleet}, bound to {@code challengeId} and the node.
   */
  public static RecipientEntry wrap(
      FleetPublicKey fleet,
      String challengeId,
      String nodeName,
      byte[] nonce,
      SecureRandom random) {
    return HybridKeyWrap.wrap(fleet, nonce, context(challengeId, nodeName), random);
  }

  /**
   * The nonce inside a challenge, recovered with the fleet's private key.
   *
   * @throws KeyUnwrapException if the challenge was not made for this fleet key, this id and this
   *     node name, or was altered
   */
  public static byte[] answer(
      FleetKeyPair fleet, String challengeId, String nodeName, RecipientEntry challenge)
      throws KeyUnwrapException {
    return HybridKeyWrap.unwrap(fleet, challenge, context(challengeId, nodeName));
  }

  private static byte[] context(String challengeId, String nodeName) {
    return Frames.hash(
        "TenSafe node registration challenge", Frames.utf8(challengeId), Frames.utf8(nodeName));
  }
}
