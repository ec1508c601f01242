package io.tensafe.tgsp.session;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The fixed {@link #BYTES}-byte head of a {@link SessionFrame}: everything a relay meters and
 * checks, readable before any ciphertext has arrived (so a relay can refuse a frame, or stream its
 * ciphertexts on, without holding the whole frame). Layout as in {@link SessionFrame}; the header's
 * bytes also hold the frame's nonce and tag, which a relay neither reads nor can forge ({@code
 * sessionauth.FrameAuth}).
 *
 * @param sequence Range: [0, 2^32).
 * @param step Range: [0, 2^32).
 * @param group Range: [0, 65535].
 * @param tokens Range: [1, 65535].
 * @param count the ciphertexts that follow the header. Range: [0, 65535].
 */
public record FrameHeader(
    FrameKind kind, long sequence, long step, int group, int tokens, int count) {
  /** Bytes of a header: magic, kind, sequence, step, group, tokens, count, nonce, tag. */
  public static final int BYTES = 19 + 2 * 16;

  /** Where the client's nonce starts, and its length. */
  static final int NONCE_AT = 19;

  static final int NONCE_BYTES = 16;

  /**
   * Where the frame's authentication tag starts ({@code sessionauth.FrameAuth}), and its length.
   */
  static final int TAG_AT = NONCE_AT + NONCE_BYTES;

  static final int TAG_BYTES = 16;

  static final byte[] MAGIC = "TPS2".getBytes(StandardCharsets.US_ASCII);

  public FrameHeader {
    if (sequence < 0 || sequence > 0xFFFF_FFFFL || step < 0 || step > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("sequence and step must fit 32 unsigned bits");
    }
    if (group < 0 || group > 0xFFFF || tokens < 1 || tokens > 0xFFFF) {
      throw new IllegalArgumentException("group or tokens out of range");
    }
    if (count < 0 || count > 0xFFFF) {
      throw new IllegalArgumentException("at most 65535 ciphertexts in a frame");
    }
  }

  /**
   * Reads the header at the start of {@code bytes} (which must hold at least {@link #BYTES}),
   * checking the magic, the kind, the token count and {@code limits}' ciphertext count.
   *
   * @throws MalformedFrameException naming the field at fault
   */
  public static FrameHeader read(byte[] bytes, FrameLimits limits) throws MalformedFrameException {
    if (bytes.length < BYTES) {
      throw new MalformedFrameException("frame is shorter than its " + BYTES + "-byte header");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes, 0, BYTES);
    byte[] magic = new byte[MAGIC.length];
    in.get(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new MalformedFrameException("not a private-session frame (bad magic)");
    }
    FrameKind kind = FrameKind.of(Byte.toUnsignedInt(in.get()));
    long sequence = Integer.toUnsignedLong(in.getInt());
    long step = Integer.toUnsignedLong(in.getInt());
    int group = Short.toUnsignedInt(in.getShort());
    int tokens = Short.toUnsignedInt(in.getShort());
    int count = Short.toUnsignedInt(in.getShort());
    if (tokens == 0) {
      throw new MalformedFrameException("a frame must declare at least one token");
    }
    if (count > limits.maxCiphertexts()) {
      throw new MalformedFrameException(
          "frame declares " + count + " ciphertexts, over the limit of " + limits.maxCiphertexts());
    }
    return new FrameHeader(kind, sequence, step, group, tokens, count);
  }

  /** Writes this header into {@code out} at its position, with {@code nonce} and a zero tag. */
  void writeInto(ByteBuffer out, byte[] nonce) {
    out.put(MAGIC)
        .put((byte) kind.code())
        .putInt((int) sequence)
        .putInt((int) step)
        .putShort((short) group)
        .putShort((short) tokens)
        .putShort((short) count)
        .put(nonce)
        .put(new byte[TAG_BYTES]);
  }

  /** This header's {@link #BYTES} bytes, with a zero nonce and tag. */
  public byte[] toBytes() {
    ByteBuffer out = ByteBuffer.allocate(BYTES);
    writeInto(out, new byte[NONCE_BYTES]);
    return out.array();
  }
}
