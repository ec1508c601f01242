package io.tensafe.tgsp.crypto;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Length-framed encodings: {@code u32 len(label) ‖ label ‖ u32 len(part_1) ‖ part_1 ‖ …},
 * big-endian. Every signed, hashed or derived input in TGSP goes through here, so no two different
 * tuples of fields can encode to the same bytes, and every use has its own domain label.
 */
public final class Frames {
  private Frames() {}

  /** The framed encoding of {@code label} followed by {@code parts}. */
  public static byte[] encode(String label, byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    write(out, label.getBytes(StandardCharsets.UTF_8));
    for (byte[] part : parts) {
      write(out, part);
    }
    return out.toByteArray();
  }

  /** SHA-256 of {@link #encode}. */
  public static byte[] hash(String label, byte[]... parts) {
    return sha256(encode(label, parts));
  }

  public static byte[] sha256(byte[] data) {
    return sha256().digest(data);
  }

  /** A fresh SHA-256 digest (always present in the JDK). */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }

  /** Lowercase hex. */
  public static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  public static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void write(ByteArrayOutputStream out, byte[] part) {
    out.writeBytes(ByteBuffer.allocate(4).putInt(part.length).array());
    out.writeBytes(part);
  }
}
