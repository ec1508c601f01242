package io.tensafe.tgsp.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Reads big-endian fields from an untrusted byte array without ever allocating more than a limit
 * the caller states up front.
 *
 * <p>Invariants: {@code 0 <= position() <= length()}; every {@code read...} either advances the
 * position by exactly the size it returns or throws and leaves the position unchanged; a declared
 * length is compared with its limit and with the remaining input <em>before</em> any array of that
 * length is allocated. Lengths on the wire are unsigned; a u64 length at or above 2^63 is reported
 * as over the limit, never as a negative number.
 *
 * <p>Not thread-safe: one reader belongs to one parse.
 */
public final class BoundedReader {
  private final ByteBuffer buffer;

  /** Wraps {@code bytes} without copying; the caller must not change them while reading. */
  public BoundedReader(byte[] bytes) {
    this.buffer = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
  }

  /** Bytes consumed so far. Range: [0, length()]. */
  public int position() {
    return buffer.position();
  }

  /** Total size of the input in bytes. */
  public int length() {
    return buffer.limit();
  }

  /** Bytes not yet consumed. Range: [0, length()]. */
  public int remaining() {
    return buffer.remaining();
  }

  /** Reads one unsigned byte. Range: [0, 255]. */
  public int readU8(String field) throws TruncatedInputException {
    require(field, 1);
    return Byte.toUnsignedInt(buffer.get());
  }

  /** Reads an unsigned 16-bit big-endian integer. Range: [0, 65535]. */
  public int readU16(String field) throws TruncatedInputException {
    require(field, 2);
    return Short.toUnsignedInt(buffer.getShort());
  }

  /** Reads an unsigned 32-bit big-endian integer. Range: [0, 2^32 - 1]. */
  public long readU32(String field) throws TruncatedInputException {
    require(field, 4);
    return Integer.toUnsignedLong(buffer.getInt());
  }

  /**
   * Reads a u32 length and checks it against {@code limit}.
   *
   * @return the length. Range: [0, limit].
   */
  public int readLengthU32(String field, int limit)
      throws TruncatedInputException, LimitExceededException {
    int start = buffer.position();
    long value = readU32(field);
    if (value > limit) {
      buffer.position(start);
      throw new LimitExceededException(field, value, limit);
    }
    return (int) value;
  }

  /**
   * Reads a u64 length and checks it against {@code limit}.
   *
   * @return the length. Range: [0, limit].
   */
  public long readLengthU64(String field, long limit)
      throws TruncatedInputException, LimitExceededException {
    require(field, 8);
    long value = buffer.getLong();
    if (Long.compareUnsigned(value, limit) > 0) {
      buffer.position(buffer.position() - 8);
      throw new LimitExceededException(field, value, limit);
    }
    return value;
  }

  /**
   * Copies the next {@code length} bytes. The length must already have passed a limit check; this
   * method still refuses to allocate more than the remaining input.
   */
  public byte[] readBytes(String field, int length) throws TruncatedInputException {
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0, was " + length);
    }
    require(field, length);
    int start = buffer.position();
    buffer.position(start + length);
    return Arrays.copyOfRange(buffer.array(), start, start + length);
  }

  /** Throws unless every byte has been consumed, so trailing garbage is never ignored. */
  public void requireFullyConsumed(String what) throws TrailingBytesException {
    if (buffer.hasRemaining()) {
      throw new TrailingBytesException(what, buffer.remaining());
    }
  }

  private void require(String field, int needed) throws TruncatedInputException {
    if (buffer.remaining() < needed) {
      throw new TruncatedInputException(field, needed, buffer.remaining());
    }
  }
}
