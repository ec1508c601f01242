package io.tensafe.kernels.params;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * The 16-byte header of every serialized kernels object, big-endian:
 *
 * <pre>
 * offset size field
 *  0     4    magic "TSHE"
 *  4     2    format version (1)
 *  6     1    object type (see {@link Type})
 *  7     1    flags (per type; unknown bits are refused)
 *  8     8    parameter fingerprint (first 8 bytes of SHA-256, see Parameters#fingerprint)
 * </pre>
 */
public record EncodingHeader(Type type, int flags, String fingerprint) {
  public static final int SIZE = 16;
  public static final int VERSION = 1;
  private static final int MAGIC = 0x54534845; // "TSHE"

  /** What follows the header. */
  public enum Type {
    PARAMETERS(1),
    SECRET_KEY(2),
    PUBLIC_KEY(3),
    CIPHERTEXT(4),
    SHARE_ANSWER(5),
    SWITCHED_ANSWER(6),
    GALOIS_KEYS(7);

    private final int code;

    Type(int code) {
      this.code = code;
    }
  }

  /** Writes this header at the buffer's position. */
  public void writeTo(ByteBuffer out) {
    out.order(ByteOrder.BIG_ENDIAN).putInt(MAGIC).putShort((short) VERSION);
    out.put((byte) type.code).put((byte) flags).put(HexFormat.of().parseHex(fingerprint));
  }

  /**
   * Reads and checks a header: magic, version, the expected type, flags within {@code
   * allowedFlags}, and (unless {@code expectedFingerprint} is null) the fingerprint.
   */
  public static EncodingHeader read(
      ByteBuffer in, Type expected, int allowedFlags, String expectedFingerprint)
      throws MalformedEncodingException {
    in.order(ByteOrder.BIG_ENDIAN);
    if (in.remaining() < SIZE) {
      throw new MalformedEncodingException(
          "header needs " + SIZE + " bytes, input has " + in.remaining());
    }
    int magic = in.getInt();
    if (magic != MAGIC) {
      throw new MalformedEncodingException(
          "magic is 0x" + Integer.toHexString(magic) + ", expected 0x54534845");
    }
    int version = Short.toUnsignedInt(in.getShort());
    if (version != VERSION) {
      throw new MalformedEncodingException(
          "version is " + version + ", this reader knows " + VERSION);
    }
    int code = Byte.toUnsignedInt(in.get());
    if (code != expected.code) {
      throw new MalformedEncodingException(
          "object type is " + code + ", expected " + expected.code + " (" + expected + ")");
    }
    int flags = Byte.toUnsignedInt(in.get());
    if ((flags & ~allowedFlags) != 0) {
      throw new MalformedEncodingException(
          "flags 0x" + Integer.toHexString(flags) + " has unknown bits");
    }
    byte[] fingerprint = new byte[8];
    in.get(fingerprint);
    String hex = HexFormat.of().formatHex(fingerprint);
    if (expectedFingerprint != null && !expectedFingerprint.equals(hex)) {
      throw new MalformedEncodingException(
          "parameter fingerprint is " + hex + ", these parameters are " + expectedFingerprint);
    }
    return new EncodingHeader(expected, flags, hex);
  }
}
