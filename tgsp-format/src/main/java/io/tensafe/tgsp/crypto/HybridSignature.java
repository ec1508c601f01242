package io.tensafe.tgsp.crypto;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.util.Arrays;

/**
 * A hybrid signature: Ed25519 and ML-DSA-65 over the same message, each with its own domain label
 * ({@code Frames.encode("TGSP-v2 sig/<alg>", message)}). Valid only if both verify, so forging one
 * needs breaking both algorithms. Encoded as the 64 Ed25519 bytes followed by the 3309 ML-DSA-65
 * bytes.
 */
public record HybridSignature(byte[] ed25519, byte[] mlDsa65) {
  public static final int ED25519_BYTES = 64;
  public static final int ML_DSA_65_BYTES = 3309;

  /** Size of {@link #encode()}'s output. */
  public static final int ENCODED_BYTES = ED25519_BYTES + ML_DSA_65_BYTES;

  public HybridSignature {
    if (ed25519.length != ED25519_BYTES || mlDsa65.length != ML_DSA_65_BYTES) {
      throw new IllegalArgumentException("hybrid signature halves have the wrong sizes");
    }
    ed25519 = ed25519.clone();
    mlDsa65 = mlDsa65.clone();
  }

  @Override
  public byte[] ed25519() {
    return ed25519.clone();
  }

  @Override
  public byte[] mlDsa65() {
    return mlDsa65.clone();
  }

  public byte[] encode() {
    byte[] out = Arrays.copyOf(ed25519, ENCODED_BYTES);
    System.arraycopy(mlDsa65, 0, out, ED25519_BYTES, ML_DSA_65_BYTES);
    return out;
  }

  /** Splits an encoded signature; the caller has checked its length is {@link #ENCODED_BYTES}. */
  public static HybridSignature decode(byte[] encoded) {
    if (encoded.length != ENCODED_BYTES) {
      throw new IllegalArgumentException("encoded hybrid signature must be " + ENCODED_BYTES);
    }
    return new HybridSignature(
        Arrays.copyOf(encoded, ED25519_BYTES),
        Arrays.copyOfRange(encoded, ED25519_BYTES, ENCODED_BYTES));
  }

  /** Signs {@code message} with both halves of {@code key}. */
  public static HybridSignature sign(CreatorKeyPair key, byte[] message, SecureRandom random) {
    return new HybridSignature(
        signOne(Algorithms.ED25519, key.ed25519(), message, random),
        signOne(Algorithms.ML_DSA_65, key.mlDsa65(), message, random));
  }

  /**
   * Returns normally only if both signatures verify under {@code key}.
   *
   * @throws SignatureInvalidException naming the algorithm(s) that failed
   */
  public void verify(CreatorPublicKey key, byte[] message) throws SignatureInvalidException {
    boolean edValid = verifyOne(Algorithms.ED25519, key.ed25519(), message, ed25519);
    boolean mlValid = verifyOne(Algorithms.ML_DSA_65, key.mlDsa65(), message, mlDsa65);
    if (!edValid || !mlValid) {
      String failed =
          !edValid && !mlValid ? "Ed25519 and ML-DSA-65" : !edValid ? "Ed25519" : "ML-DSA-65";
      throw new SignatureInvalidException(
          "the " + failed + " signature by creator key " + key.keyId() + " does not verify");
    }
  }

  private static byte[] domain(Algorithms algorithm, byte[] message) {
    return Frames.encode("TGSP-v2 sig/" + algorithm.jcaName(), message);
  }

  private static byte[] signOne(
      Algorithms algorithm, PrivateKey key, byte[] message, SecureRandom random) {
    try {
      Signature s = Signature.getInstance(algorithm.jcaName());
      s.initSign(key, random);
      s.update(domain(algorithm, message));
      return s.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(algorithm.jcaName() + " signing failed", e);
    }
  }

  private static boolean verifyOne(
      Algorithms algorithm, PublicKey key, byte[] message, byte[] signature) {
    try {
      Signature s = Signature.getInstance(algorithm.jcaName());
      s.initVerify(key);
      s.update(domain(algorithm, message));
      return s.verify(signature);
    } catch (GeneralSecurityException e) {
      return false; // a malformed signature is an invalid one
    }
  }
}
