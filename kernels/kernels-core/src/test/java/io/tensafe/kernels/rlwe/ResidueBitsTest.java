package io.tensafe.kernels.rlwe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tensafe.kernels.params.MalformedEncodingException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Bit-packed runs: every width and length round-trips, back to back, and bad padding is refused.
 */
class ResidueBitsTest {
  @Test
  void runsOfEveryWidth_roundTrip_backToBack() throws Exception {
    SplittableRandom random = new SplittableRandom(5);
    for (int bits = 1; bits <= 62; bits++) {
      for (int count : new int[] {0, 1, 7, 8, 9, 63, 64, 65, 300}) {
        long[] first = new long[count];
        long[] second = new long[count + 1];
        for (int i = 0; i < count; i++) {
          first[i] = random.nextLong() >>> (64 - bits);
        }
        for (int i = 0; i <= count; i++) {
          second[i] = random.nextLong() >>> (64 - bits);
        }
        long size = ResidueBits.bytesFor(count, bits) + ResidueBits.bytesFor(count + 1, bits);
        ByteBuffer out = ByteBuffer.allocate((int) size);
        write(out, first, bits);
        write(out, second, bits);
        assertEquals(size, out.position(), "bits " + bits + " count " + count);
        ByteBuffer in = ByteBuffer.wrap(out.array());
        assertArrayEquals(first, read(in, count, bits));
        assertArrayEquals(second, read(in, count + 1, bits));
        assertEquals(0, in.remaining());
      }
    }
  }

  @Test
  void nonZeroPadding_isRefused() {
    ByteBuffer out = ByteBuffer.allocate(2);
    write(out, new long[] {5}, 3);
    write(out, new long[] {1}, 1);
    byte[] bytes = out.array();
    bytes[0] |= 1; // a padding bit of the first run
    assertThrows(MalformedEncodingException.class, () -> read(ByteBuffer.wrap(bytes), 1, 3));
  }

  private static void write(ByteBuffer out, long[] values, int bits) {
    ResidueBits.Writer w = new ResidueBits.Writer(out);
    for (long v : values) {
      w.put(v, bits);
    }
    w.finish();
  }

  private static long[] read(ByteBuffer in, int count, int bits) throws MalformedEncodingException {
    ResidueBits.Reader r = new ResidueBits.Reader(in, (long) count * bits);
    long[] values = new long[count];
    for (int i = 0; i < count; i++) {
      values[i] = r.get(bits);
    }
    r.finish();
    return values;
  }
}
