package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.MalformedEncodingException;
import java.nio.ByteBuffer;

/**
 * Residues written at a fixed bit width, most significant bit first, with no padding between values
 * and zero bits up to the next byte at the end. Widths are in [1, 62]; a 54-bit prime's residues
 * take 54 bits instead of a word's 64.
 */
final class ResidueBits {
  private ResidueBits() {}

  /** The bytes {@code count} values of {@code bits} bits take. */
  static long bytesFor(long count, int bits) {
    return (count * bits + 7) / 8;
  }

  /** A writer of one run of values. */
  static final class Writer {
    private final ByteBuffer out;
    private long pending;
    private int pendingBits;

    Writer(ByteBuffer out) {
      this.out = out;
    }

    /** Writes {@code value}'s low {@code bits} bits; the value must fit them. */
    void put(long value, int bits) {
      if (bits > 32) {
        putUpTo32(value >>> 32, bits - 32);
        putUpTo32(value & 0xFFFF_FFFFL, 32);
      } else {
        putUpTo32(value, bits);
      }
    }

    private void putUpTo32(long value, int bits) {
      pending = (pending << bits) | value;
      pendingBits += bits;
      while (pendingBits >= 8) {
        out.put((byte) (pending >>> (pendingBits - 8)));
        pendingBits -= 8;
      }
      pending &= (1L << pendingBits) - 1;
    }

    /** Writes the last partial byte, zero-padded. */
    void finish() {
      if (pendingBits > 0) {
        out.put((byte) (pending << (8 - pendingBits)));
        pendingBits = 0;
        pending = 0;
      }
    }
  }

  /** A reader of one run of values; the caller has checked that the bytes are there. */
  static final class Reader {
    private final ByteBuffer in;
    private long pending;
    private int pendingBits;

    Reader(ByteBuffer in) {
      this.in = in;
    }

    long get(int bits) {
      if (bits > 32) {
        long high = getUpTo32(bits - 32);
        return (high << 32) | getUpTo32(32);
      }
      return getUpTo32(bits);
    }

    private long getUpTo32(int bits) {
      while (pendingBits < bits) {
        pending = (pending << 8) | Byte.toUnsignedLong(in.get());
        pendingBits += 8;
      }
      long value = (pending >>> (pendingBits - bits)) & ((1L << bits) - 1);
      pendingBits -= bits;
      pending &= (1L << pendingBits) - 1;
      return value;
    }

    /** Refuses a last byte whose padding bits are not zero. */
    void finish() throws MalformedEncodingException {
      if (pending != 0) {
        throw new MalformedEncodingException(
            "the padding bits after the last residue are not zero");
      }
      pendingBits = 0;
    }
  }
}
