package io.tensafe.tgsp.container;

import io.tensafe.tgsp.crypto.HybridSignature;
import io.tensafe.tgsp.crypto.PayloadCipher;
import io.tensafe.tgsp.io.BoundedReader;
import io.tensafe.tgsp.io.LimitExceededException;
import io.tensafe.tgsp.io.TruncatedInputException;
import io.tensafe.tgsp.manifest.ManifestCodec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The fixed 80-byte prefix of a TGSP v2 file (big-endian). From it alone a reader knows where every
 * section lies and checks every size against its limit before reading further.
 *
 * <pre>
 * offset size field
 *  0     4    magic "TGSP"
 *  4     1    major version = 2
 *  5     1    minor version = 0
 *  6     2    flags: bit 0 = payload encrypted (must be set); all other bits 0
 *  8     4    manifest length, [2, 1 MiB]
 * 12     4    recipients length, 2 + 1214 · count, count in [1, 64]
 * 16     4    signature length, = 3373
 * 20     4    plaintext chunk size, [4 KiB, 16 MiB]
 * 24     8    payload (ciphertext) length, [16, 2^50]
 * 32    16    creator key id
 * 48    32    SHA-256 of the payload ciphertext
 * </pre>
 *
 * @param creatorKeyId 16 bytes
 * @param payloadSha256 32 bytes
 */
public record PackagePrefix(
    int manifestLength,
    int recipientsLength,
    int signatureLength,
    int chunkSize,
    long payloadLength,
    byte[] creatorKeyId,
    byte[] payloadSha256) {
  public static final int BYTES = 80;
  public static final byte[] MAGIC = {'T', 'G', 'S', 'P'};
  public static final int MAJOR = 2;
  public static final int MINOR = 0;
  public static final int FLAG_ENCRYPTED = 1;

  /** Largest payload accepted (1 PiB): bounds arithmetic, not memory; payloads are streamed. */
  public static final long MAX_PAYLOAD_BYTES = 1L << 50;

  public PackagePrefix {
    creatorKeyId = creatorKeyId.clone();
    payloadSha256 = payloadSha256.clone();
  }

  @Override
  public byte[] creatorKeyId() {
    return creatorKeyId.clone();
  }

  @Override
  public byte[] payloadSha256() {
    return payloadSha256.clone();
  }

  /** The creator key id as 32 lowercase hex digits. */
  public String creatorKeyIdHex() {
    return HexFormat.of().formatHex(creatorKeyId);
  }

  /** Offset of the payload: the sum of the prefix and the three sections before it. */
  public long payloadOffset() {
    return (long) BYTES + manifestLength + recipientsLength + signatureLength;
  }

  /** Total file size these lengths imply. */
  public long fileLength() {
    return payloadOffset() + payloadLength;
  }

  public byte[] encode() {
    return ByteBuffer.allocate(BYTES)
        .put(MAGIC)
        .put((byte) MAJOR)
        .put((byte) MINOR)
        .putShort((short) FLAG_ENCRYPTED)
        .putInt(manifestLength)
        .putInt(recipientsLength)
        .putInt(signatureLength)
        .putInt(chunkSize)
        .putLong(payloadLength)
        .put(creatorKeyId)
        .put(payloadSha256)
        .array();
  }

  /** Decodes and checks the prefix: magic, version, flags, and every length against its limit. */
  public static PackagePrefix decode(byte[] bytes)
      throws TruncatedInputException, LimitExceededException, MalformedPackageException {
    BoundedReader in = new BoundedReader(bytes);
    byte[] magic = in.readBytes("magic", 4);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new MalformedPackageException(
          "not a TGSP file: magic is " + HexFormat.of().formatHex(magic) + ", expected 54475350");
    }
    int major = in.readU8("major version");
    int minor = in.readU8("minor version");
    if (major != MAJOR || minor != MINOR) {
      throw new MalformedPackageException(
          "TGSP version " + major + "." + minor + " is not supported; this reader reads 2.0");
    }
    int flags = in.readU16("flags");
    if (flags != FLAG_ENCRYPTED) {
      throw new MalformedPackageException(
          "flags are 0x"
              + Integer.toHexString(flags)
              + "; TGSP v2 requires exactly 0x1 (encrypted)");
    }
    int manifestLength = in.readLengthU32("manifest length", ManifestCodec.MAX_MANIFEST_BYTES);
    int recipientsLength = in.readLengthU32("recipients length", RecipientsCodec.MAX_SECTION_BYTES);
    int signatureLength = in.readLengthU32("signature length", HybridSignature.ENCODED_BYTES);
    long chunkSize = in.readU32("chunk size");
    long payloadLength = in.readLengthU64("payload length", MAX_PAYLOAD_BYTES);
    byte[] keyId = in.readBytes("creator key id", 16);
    byte[] digest = in.readBytes("payload digest", 32);
    if (manifestLength < 2) {
      throw new MalformedPackageException("manifest length " + manifestLength + " is below 2");
    }
    if (!RecipientsCodec.isValidLength(recipientsLength)) {
      throw new MalformedPackageException(
          "recipients length " + recipientsLength + " is not 2 + 1214 · n for n in [1, 64]");
    }
    if (signatureLength != HybridSignature.ENCODED_BYTES) {
      throw new MalformedPackageException(
          "signature length " + signatureLength + " is not " + HybridSignature.ENCODED_BYTES);
    }
    if (chunkSize < PayloadCipher.MIN_CHUNK_BYTES || chunkSize > PayloadCipher.MAX_CHUNK_BYTES) {
      throw new LimitExceededException("chunk size", chunkSize, PayloadCipher.MAX_CHUNK_BYTES);
    }
    if (payloadLength < PayloadCipher.TAG_BYTES) {
      throw new MalformedPackageException(
          "payload length " + payloadLength + " is shorter than one authentication tag");
    }
    return new PackagePrefix(
        manifestLength,
        recipientsLength,
        signatureLength,
        (int) chunkSize,
        payloadLength,
        keyId,
        digest);
  }
}
