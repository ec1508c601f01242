package io.tensafe.tgsp.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BoundedReaderTest {

  @Test
  void readU32_bigEndianBytes_decodesUnsigned() throws Exception {
    BoundedReader reader = new BoundedReader(new byte[] {(byte) 0xFF, 0, 0, 1});
    assertEquals(0xFF000001L, reader.readU32("magic"));
    assertEquals(4, reader.position());
  }

  @Test
  void readU8AndU16_mixedFields_advanceExactly() throws Exception {
    BoundedReader reader = new BoundedReader(new byte[] {2, 0x12, 0x34});
    assertEquals(2, reader.readU8("major"));
    assertEquals(0x1234, reader.readU16("flags"));
    assertEquals(0, reader.remaining());
  }

  @Test
  void readLengthU32_overLimit_throwsBeforeAllocatingAndKeepsPosition() {
    // Declares a 4 GiB section in a 4-byte input: must fail on the limit, not on allocation.
    BoundedReader reader =
        new BoundedReader(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, -1});
    LimitExceededException e =
        assertThrows(
            LimitExceededException.class, () -> reader.readLengthU32("manifest_len", 1024));
    assertEquals("manifest_len", e.field());
    assertEquals(0xFFFFFFFFL, e.value());
    assertEquals(1024, e.limit());
    assertTrue(e.getMessage().contains("4294967295"), e.getMessage());
    assertEquals(0, reader.position());
  }

  @Test
  void readLengthU64_highBitSet_isOverLimitNotNegative() {
    byte[] bytes = {(byte) 0x80, 0, 0, 0, 0, 0, 0, 0};
    BoundedReader reader = new BoundedReader(bytes);
    LimitExceededException e =
        assertThrows(
            LimitExceededException.class,
            () -> reader.readLengthU64("payload_len", Long.MAX_VALUE));
    assertTrue(e.getMessage().contains("9223372036854775808"), e.getMessage());
    assertEquals(0, reader.position());
  }

  @Test
  void readBytes_lengthPastEnd_throwsTruncated() {
    BoundedReader reader = new BoundedReader(new byte[] {1, 2, 3});
    TruncatedInputException e =
        assertThrows(TruncatedInputException.class, () -> reader.readBytes("signature", 4));
    assertTrue(e.getMessage().contains("signature needs 4 bytes but only 3 remain"));
  }

  @Test
  void readBytes_withinInput_copiesAndAdvances() throws Exception {
    BoundedReader reader = new BoundedReader(new byte[] {0, 0, 0, 2, 7, 9});
    int length = reader.readLengthU32("recipients_len", 16);
    assertArrayEquals(new byte[] {7, 9}, reader.readBytes("recipients", length));
    reader.requireFullyConsumed("prefix");
  }

  @Test
  void requireFullyConsumed_trailingByte_throws() throws Exception {
    BoundedReader reader = new BoundedReader(new byte[] {1, 2});
    reader.readU8("major");
    assertThrows(TrailingBytesException.class, () -> reader.requireFullyConsumed("prefix"));
  }
}
