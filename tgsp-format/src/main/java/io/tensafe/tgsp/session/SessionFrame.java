package io.tensafe.tgsp.session;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One frame of a private session (ADR 0017): a round the client sends, or the node's answer to it.
 * The ciphertexts are opaque here (the kernels' encoding); the marketplace meters from the header
 * alone. Layout, big-endian: magic {@code "TPS2"}, kind (u8), sequence (u32), step (u32), group
 * (u16), tokens (u16), count (u16), nonce (16 bytes), tag (16 bytes, {@code sessionauth.FrameAuth};
 * zero until sealed), then {@code count} times a u32 length and that many bytes.
 *
 * @param sequence the frame's place in its session, from 0, one more for each client frame; an
 *     answer repeats the sequence of the frame it answers. Range: [0, 2^32).
 * @param step 0 for the prefill, then one per decoded token. Range: [0, 2^32).
 * @param group the site group (sites that read one input) within the step, in the session plan's
 *     order. Range: [0, 65535].
 * @param tokens the tokens the step processes: the prompt's in the prefill, then 1. Range: [1,
 *     65535].
 * @param nonce 16 bytes the client draws fresh for each frame it sends (its uploads' c1 seeds
 *     depend on it, ADR 0037); zero in the node's answers
 */
public record SessionFrame(
    FrameKind kind,
    long sequence,
    long step,
    int group,
    int tokens,
    byte[] nonce,
    List<byte[]> ciphertexts) {
  /** Bytes of a frame's nonce. */
  public static final int NONCE_BYTES = FrameHeader.NONCE_BYTES;

  /** Bytes of a frame's tag: the header's last ({@code sessionauth.FrameAuth}). */
  public static final int TAG_BYTES = FrameHeader.TAG_BYTES;

  /** Bytes before the first ciphertext ({@link FrameHeader#BYTES}). */
  public static final int HEADER_BYTES = FrameHeader.BYTES;

  public SessionFrame {
    if (sequence < 0 || sequence > 0xFFFF_FFFFL || step < 0 || step > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("sequence and step must fit 32 unsigned bits");
    }
    if (group < 0 || group > 0xFFFF || tokens < 1 || tokens > 0xFFFF) {
      throw new IllegalArgumentException("group or tokens out of range");
    }
    if (ciphertexts.size() > 0xFFFF) {
      throw new IllegalArgumentException("at most 65535 ciphertexts in a frame");
    }
    if (nonce.length != NONCE_BYTES) {
      throw new IllegalArgumentException("a frame's nonce has " + NONCE_BYTES + " bytes");
    }
    nonce = nonce.clone();
    ciphertexts = List.copyOf(ciphertexts);
  }

  /** A frame with a zero nonce (the node's answers, tests). */
  public SessionFrame(
      FrameKind kind, long sequence, long step, int group, int tokens, List<byte[]> ciphertexts) {
    this(kind, sequence, step, group, tokens, new byte[NONCE_BYTES], ciphertexts);
  }

  @Override
  public byte[] nonce() {
    return nonce.clone();
  }

  /** The frame's bytes, its tag zero ({@code sessionauth.FrameAuth} fills it). */
  public byte[] toBytes() {
    long size = HEADER_BYTES;
    for (byte[] c : ciphertexts) {
      size += 4L + c.length;
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("frame too large: " + size + " bytes");
    }
    ByteBuffer out = ByteBuffer.allocate((int) size);
    header().writeInto(out, nonce);
    for (byte[] c : ciphertexts) {
      out.putInt(c.length).put(c);
    }
    return out.array();
  }

  /**
   * Reads a frame, checking {@code limits} and every declared length against the bytes present
   * before copying anything, and refusing trailing bytes.
   */
  public static SessionFrame read(byte[] bytes, FrameLimits limits) throws MalformedFrameException {
    if (bytes.length > limits.maxFrameBytes()) {
      throw new MalformedFrameException(
          "frame is " + bytes.length + " bytes, over the limit of " + limits.maxFrameBytes());
    }
    FrameHeader header = FrameHeader.read(bytes, limits);
    int count = header.count();
    ByteBuffer in = ByteBuffer.wrap(bytes);
    in.position(HEADER_BYTES);
    List<byte[]> ciphertexts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      if (in.remaining() < 4) {
        throw new MalformedFrameException("frame ends inside ciphertext " + i + "'s length");
      }
      long length = Integer.toUnsignedLong(in.getInt());
      if (length > limits.maxCiphertextBytes()) {
        throw new MalformedFrameException(
            "ciphertext "
                + i
                + " is "
                + length
                + " bytes, over the limit of "
                + limits.maxCiphertextBytes());
      }
      if (length > in.remaining()) {
        throw new MalformedFrameException(
            "ciphertext " + i + " declares " + length + " bytes but " + in.remaining() + " remain");
      }
      byte[] c = new byte[(int) length];
      in.get(c);
      ciphertexts.add(c);
    }
    if (in.hasRemaining()) {
      throw new MalformedFrameException(in.remaining() + " bytes after the last ciphertext");
    }
    return new SessionFrame(
        header.kind(),
        header.sequence(),
        header.step(),
        header.group(),
        header.tokens(),
        Arrays.copyOfRange(bytes, FrameHeader.NONCE_AT, FrameHeader.NONCE_AT + NONCE_BYTES),
        ciphertexts);
  }

  /** This frame's header: its fields and ciphertext count. */
  public FrameHeader header() {
    return new FrameHeader(kind, sequence, step, group, tokens, ciphertexts.size());
  }

  /** The answer to this frame: same sequence, step, group and tokens. */
  public SessionFrame answer(List<byte[]> products) {
    return new SessionFrame(FrameKind.ANSWER, sequence, step, group, tokens, products);
  }
}
