package io.tensafe.marketplace.privatemode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * A client frame as it is streamed on to the node: its header (already read and checked), then its
 * ciphertexts read from the client as the node takes them, each length prefix checked to be exactly
 * the plan's {@code upload_bytes} before it is passed on. The whole length was checked against the
 * header before streaming began, so the node gets either exactly a frame of the planned shape or a
 * truncated body it cannot read as a frame: a prefix that differs, or a client that stops sending,
 * ends the stream with an {@link IOException} before the ciphertext it concerns, and {@link
 * #clientFault} says why. At most one ciphertext's prefix and a read buffer are held; the
 * ciphertexts are never buffered whole. Read by one thread at a time.
 */
final class RelayedFrameBody extends InputStream {
  private final byte[] header;
  private final InputStream client;
  private final int count;
  private final int ciphertextBytes;
  private final byte[] prefix = new byte[4];

  /** Bytes of {@link #header} already passed on. */
  private int headerSent;

  /** Ciphertexts whose prefix was checked. */
  private int started;

  /** Bytes of the current ciphertext still to pass on. */
  private long left;

  /** Bytes of the current prefix already passed on (4 when none is pending). */
  private int prefixSent = 4;

  private volatile String fault;

  /** Bytes passed on so far, of {@link #total}. */
  private volatile long passed;

  /** {@code System.nanoTime()} when the last byte was passed on; 0 before. */
  private volatile long completedAtNanos;

  private final long total;

  /**
   * @param header the frame's header bytes, as the client sent them
   * @param count the ciphertexts the header declares
   * @param client the rest of the client's body: {@code count} × (4 + {@code ciphertextBytes})
   *     bytes
   */
  RelayedFrameBody(byte[] header, int count, InputStream client, int ciphertextBytes) {
    this.header = header.clone();
    this.client = client;
    this.count = count;
    this.ciphertextBytes = ciphertextBytes;
    this.total = header.length + (long) count * (4L + ciphertextBytes);
  }

  /** Whether the whole frame has been passed on (the node may have it all). */
  boolean complete() {
    return passed == total;
  }

  /** Why the stream ended early on the client's side, or null if it did not. */
  String clientFault() {
    return fault;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] out, int offset, int length) throws IOException {
    int n = readSome(out, offset, length);
    if (n > 0) {
      passed += n;
      if (passed == total) {
        completedAtNanos = System.nanoTime();
      }
    }
    return n;
  }

  /**
   * Nanoseconds since the whole frame was passed on: the node's own time to answer; -1 while it is
   * not complete.
   */
  long nanosSinceComplete() {
    long at = completedAtNanos;
    return at == 0 ? -1 : System.nanoTime() - at;
  }

  private int readSome(byte[] out, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (headerSent < header.length) {
      int n = Math.min(length, header.length - headerSent);
      System.arraycopy(header, headerSent, out, offset, n);
      headerSent += n;
      return n;
    }
    if (prefixSent < 4) {
      int n = Math.min(length, 4 - prefixSent);
      System.arraycopy(prefix, prefixSent, out, offset, n);
      prefixSent += n;
      return n;
    }
    if (left == 0) {
      if (started == count) {
        return -1;
      }
      readPrefix();
      return readSome(out, offset, length);
    }
    int n;
    try {
      n = client.read(out, offset, (int) Math.min(length, left));
    } catch (IOException e) {
      throw fail("the client's body failed inside ciphertext " + (started - 1) + ": " + e);
    }
    if (n < 0) {
      throw fail("the client's body ended inside ciphertext " + (started - 1));
    }
    left -= n;
    return n;
  }

  /** Reads and checks ciphertext {@link #started}'s length prefix. */
  private void readPrefix() throws IOException {
    byte[] read;
    try {
      read = client.readNBytes(4);
    } catch (IOException e) {
      throw fail("the client's body failed before ciphertext " + started + ": " + e);
    }
    if (read.length < 4) {
      throw fail("the client's body ended before ciphertext " + started);
    }
    long declared = Integer.toUnsignedLong(ByteBuffer.wrap(read).getInt());
    if (declared != ciphertextBytes) {
      throw fail(
          "ciphertext "
              + started
              + " declares "
              + declared
              + " bytes where the session's plan gives exactly "
              + ciphertextBytes);
    }
    System.arraycopy(read, 0, prefix, 0, 4);
    prefixSent = 0;
    left = ciphertextBytes;
    started++;
  }

  private IOException fail(String why) {
    fault = why;
    return new IOException("client frame refused: " + why);
  }
}
