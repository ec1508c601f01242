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

  /** A writer of one run of values: whole 64-bit words as they fill, then the tail's bytes. */
  static final class Writer {
    private final ByteBuffer out;
    private long word;
    private int used;

    Writer(ByteBuffer out) {
      this.out = out;
    }

    /** Writes {@code value}'s low {@code bits} bits, bits in [1, 62]; the value must fit them. */
    void put(long value, int bits) {
      if (used == 0) {
        word = value;
        used = bits;
        return;
      }
      int free = 64 - used;
      if (bits < free) {
        word = (word << bits) | value;
        used += bits;
      } else {
        int rest = bits - free;
        out.putLong((word << free) | (value >>> rest));
        word = rest == 0 ? 0 : value & ((1L << rest) - 1);
        used = rest;
      }
    }

    /** Writes the bits still held, zero-padded to a byte. */
    void finish() {
      long aligned = used == 0 ? 0 : word << (64 - used);
      for (int b = 0; b < (used + 7) / 8; b++) {
        out.put((byte) (aligned >>> (56 - 8 * b)));
      }
      word = 0;
      used = 0;
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
