package io.tensafe.kernels.rlwe;

import io.tensafe.kernels.params.MalformedEncodingException;
import java.nio.ByteBuffer;

/**
 * Residues written at a fixed bit width, most significant bit first, with no padding between values
 * and zero bits up to the next byte at the end. Widths are in [1, 62]; a 54-bit prime's residues
 * take 54 bits instead of a word's 64.
 */
public final class ResidueBits {
  private ResidueBits() {}

  /** The bytes {@code count} values of {@code bits} bits take. */
  public static long bytesFor(long count, int bits) {
    return (count * bits + 7) / 8;
  }

  /** A writer of one run of values: whole 64-bit words as they fill, then the tail's bytes. */
  public static final class Writer {
    private final ByteBuffer out;
    private long word;
    private int used;

    public Writer(ByteBuffer out) {
      this.out = out;
    }

    /** Writes {@code value}'s low {@code bits} bits, bits in [1, 62]; the value must fit them. */
    public void put(long value, int bits) {
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
    public void finish() {
      long aligned = used == 0 ? 0 : word << (64 - used);
      for (int b = 0; b < (used + 7) / 8; b++) {
        out.put((byte) (aligned >>> (56 - 8 * b)));
      }
      word = 0;
      used = 0;
    }
  }

  /**
   * A reader of one run of {@code runBits} bits (its last byte zero-padded), a 64-bit word at a
   * time while the run has that many bytes left; the caller has checked that the bytes are there.
   */
  public static final class Reader {
    private final ByteBuffer in;
    private long bytesLeft;
    private long word;
    private int available;

    public Reader(ByteBuffer in, long runBits) {
      this.in = in;
      this.bytesLeft = (runBits + 7) / 8;
    }

    /** The next {@code bits} bits, bits in [1, 62]. */
    public long get(int bits) {
      if (available >= bits) {
        available -= bits;
        return (word >>> available) & ((1L << bits) - 1);
      }
      int need = bits - available;
      long high = available == 0 ? 0 : word & ((1L << available) - 1);
      refill();
      available -= need;
      return (high << need) | ((word >>> available) & ((1L << need) - 1));
    }

    private void refill() {
      if (bytesLeft >= 8) {
        word = in.getLong();
        available = 64;
        bytesLeft -= 8;
        return;
      }
      word = 0;
      available = 0;
      while (bytesLeft > 0) {
        word = (word << 8) | Byte.toUnsignedLong(in.get());
        available += 8;
        bytesLeft--;
      }
    }

    /** Refuses a run whose padding bits are not zero or whose bytes were not all read. */
    public void finish() throws MalformedEncodingException {
      boolean paddingZero = available == 0 || (word & ((1L << available) - 1)) == 0;
      if (!paddingZero || bytesLeft != 0 || available >= 8) {
        throw new MalformedEncodingException(
            "the padding bits after the last residue are not zero");
      }
      available = 0;
    }
  }
}
