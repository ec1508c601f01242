package io.tensafe.node.privatemode;

import io.tensafe.kernels.helora.PrivateClient;
import io.tensafe.kernels.params.MalformedEncodingException;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.kernels.rlwe.GaloisKeys;
import io.tensafe.kernels.rlwe.GaloisKeysCodec;
import io.tensafe.kernels.rlwe.PublicKey;
import io.tensafe.kernels.rlwe.RlweCodec;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One ring's keys as a private session's opening carries them (an entry of {@code public_keys}):
 * the client's public key and its key-switching keys for packing the answers (ADR 0032). Wire: the
 * public key's length (4 bytes, big-endian), its {@link RlweCodec} encoding, then the {@link
 * GaloisKeysCodec} encoding. The node keeps them for the session only.
 */
public record RingKeys(PublicKey publicKey, GaloisKeys galoisKeys) {
  /** The opening entry of {@code client}'s ring, with fresh Galois keys. */
  public static byte[] toBytes(PrivateClient client) {
    byte[] key = RlweCodec.toBytes(client.publicKey());
    byte[] galois = GaloisKeysCodec.toBytes(client.galoisKeys());
    return ByteBuffer.allocate(4 + key.length + galois.length)
        .putInt(key.length)
        .put(key)
        .put(galois)
        .array();
  }

  /**
   * Reads one ring's entry.
   *
   * @throws MalformedEncodingException if a part does not decode in ring {@code p} (the Galois keys
   *     are exactly {@link GaloisKeys#packingElements}'s)
   */
  public static RingKeys fromBytes(byte[] bytes, Parameters p) throws MalformedEncodingException {
    int keyLength = publicKeyLength(bytes);
    PublicKey key = RlweCodec.publicKeyFromBytes(Arrays.copyOfRange(bytes, 4, 4 + keyLength), p);
    GaloisKeys galois =
        GaloisKeysCodec.fromBytes(Arrays.copyOfRange(bytes, 4 + keyLength, bytes.length), p);
    return new RingKeys(key, galois);
  }

  /**
   * Reads only the public key of a ring's entry, for a ring the session does not compute in: its
   * Galois keys (megabytes in memory) are neither decoded nor kept.
   *
   * @throws MalformedEncodingException if the public key does not decode in ring {@code p}
   */
  public static PublicKey publicKeyOf(byte[] bytes, Parameters p)
      throws MalformedEncodingException {
    int keyLength = publicKeyLength(bytes);
    return RlweCodec.publicKeyFromBytes(Arrays.copyOfRange(bytes, 4, 4 + keyLength), p);
  }

  private static int publicKeyLength(byte[] bytes) throws MalformedEncodingException {
    if (bytes.length < 4) {
      throw new MalformedEncodingException("a ring's keys start with the public key's length");
    }
    int keyLength = ByteBuffer.wrap(bytes).getInt();
    if (keyLength < 0 || keyLength > bytes.length - 4) {
      throw new MalformedEncodingException(
          "the public key's length " + keyLength + " does not fit " + bytes.length + " bytes");
    }
    return keyLength;
  }
}
