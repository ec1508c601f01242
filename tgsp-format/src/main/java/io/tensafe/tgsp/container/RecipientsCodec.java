package io.tensafe.tgsp.container;

import io.tensafe.tgsp.crypto.RecipientEntry;
import io.tensafe.tgsp.io.BoundedReader;
import io.tensafe.tgsp.io.LimitExceededException;
import io.tensafe.tgsp.io.TrailingBytesException;
import io.tensafe.tgsp.io.TruncatedInputException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The recipients section: {@code u16 count} (1..64), then per recipient {@code u16 id length (=32)
 * ‖ id (32 hex ASCII) ‖ X25519 ephemeral (44) ‖ ML-KEM-768 ciphertext (1088) ‖ wrapped key (48)}.
 * Recipient ids are distinct.
 */
public final class RecipientsCodec {
  public static final int MAX_RECIPIENTS = 64;
  static final int ID_BYTES = 32;
  static final int ENTRY_BYTES =
      2
          + ID_BYTES
          + RecipientEntry.X25519_EPHEMERAL_BYTES
          + RecipientEntry.ML_KEM_CIPHERTEXT_BYTES
          + RecipientEntry.WRAPPED_KEY_BYTES;
  public static final int MAX_SECTION_BYTES = 2 + MAX_RECIPIENTS * ENTRY_BYTES;
  private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");

  private RecipientsCodec() {}

  static boolean isValidLength(int length) {
    int entries = (length - 2) / ENTRY_BYTES;
    return length >= 2 + ENTRY_BYTES
        && (length - 2) % ENTRY_BYTES == 0
        && entries <= MAX_RECIPIENTS;
  }

  public static byte[] encode(List<RecipientEntry> entries) {
    if (entries.isEmpty() || entries.size() > MAX_RECIPIENTS) {
      throw new IllegalArgumentException("a package needs 1 to 64 recipients");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(ByteBuffer.allocate(2).putShort((short) entries.size()).array());
    for (RecipientEntry e : entries) {
      byte[] id = e.recipientId().getBytes(StandardCharsets.US_ASCII);
      out.writeBytes(ByteBuffer.allocate(2).putShort((short) id.length).array());
      out.writeBytes(id);
      out.writeBytes(e.x25519Ephemeral());
      out.writeBytes(e.mlKemCiphertext());
      out.writeBytes(e.wrappedKey());
    }
    return out.toByteArray();
  }

  public static List<RecipientEntry> decode(byte[] section)
      throws TruncatedInputException,
          LimitExceededException,
          TrailingBytesException,
          MalformedPackageException {
    BoundedReader in = new BoundedReader(section);
    int count = in.readU16("recipient count");
    if (count < 1 || count > MAX_RECIPIENTS) {
      throw new LimitExceededException("recipient count", count, MAX_RECIPIENTS);
    }
    List<RecipientEntry> entries = new ArrayList<>(count);
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < count; i++) {
      int idLength = in.readU16("recipient " + i + " id length");
      if (idLength != ID_BYTES) {
        throw new MalformedPackageException(
            "recipient " + i + " id length is " + idLength + ", expected " + ID_BYTES);
      }
      String id =
          new String(in.readBytes("recipient " + i + " id", ID_BYTES), StandardCharsets.US_ASCII);
      if (!ID.matcher(id).matches() || !ids.add(id)) {
        throw new MalformedPackageException(
            "recipient " + i + " id is not 32 lowercase hex digits, or repeats another");
      }
      entries.add(
          new RecipientEntry(
              id,
              in.readBytes("recipient " + i + " X25519 key", RecipientEntry.X25519_EPHEMERAL_BYTES),
              in.readBytes(
                  "recipient " + i + " ML-KEM ciphertext", RecipientEntry.ML_KEM_CIPHERTEXT_BYTES),
              in.readBytes("recipient " + i + " wrapped key", RecipientEntry.WRAPPED_KEY_BYTES)));
    }
    in.requireFullyConsumed("recipients section");
    return entries;
  }
}
