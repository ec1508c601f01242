package io.tensafe.tgsp.crypto;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.function.LongConsumer;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Chunked AES-256-GCM over a payload stream. Chunk i (from 0) of at most {@code chunkSize}
 * plaintext bytes becomes {@code AES-GCM(dataKey, nonce = 0^32 ‖ u64 i, chunk, AAD =
 * Frames("TGSP-v2 chunk", manifest SHA-256, u64 i, u8 final))}, i.e. its bytes plus a 16-byte tag.
 * Every chunk but the last is full; an empty payload is one empty final chunk. Reordering,
 * truncation (the new last chunk is not marked final), splicing from another package (other
 * manifest hash or key) and any bit flip fail authentication. Deterministic nonces are safe because
 * every package has a fresh data key.
 *
 * <p>Invariants: {@code chunkSize} in [{@link #MIN_CHUNK_BYTES}, {@link #MAX_CHUNK_BYTES}]; memory
 * use is two chunk buffers, whatever the payload size.
 */
public final class PayloadCipher {
  public static final int TAG_BYTES = 16;
  public static final int MIN_CHUNK_BYTES = 4 << 10;
  public static final int MAX_CHUNK_BYTES = 16 << 20;

  /**
   * Default plaintext chunk size (64 KiB): small enough that the JIT compiles the AES-GCM
   * intrinsics within the first megabytes.
   */
  public static final int DEFAULT_CHUNK_BYTES = 64 << 10;

  private final SecretKeySpec key;
  private final byte[] manifestSha256;
  private final int chunkSize;

  public PayloadCipher(byte[] dataKey, byte[] manifestSha256, int chunkSize) {
    if (dataKey.length != HybridKeyWrap.DATA_KEY_BYTES || manifestSha256.length != 32) {
      throw new IllegalArgumentException("data key and manifest hash must be 32 bytes");
    }
    requireChunkSize(chunkSize);
    this.key = new SecretKeySpec(dataKey, "AES");
    this.manifestSha256 = manifestSha256.clone();
    this.chunkSize = chunkSize;
  }

  /** Throws unless {@code chunkSize} is within the format's range. */
  public static void requireChunkSize(long chunkSize) {
    if (chunkSize < MIN_CHUNK_BYTES || chunkSize > MAX_CHUNK_BYTES) {
      throw new IllegalArgumentException(
          "chunk size "
              + chunkSize
              + " is outside ["
              + MIN_CHUNK_BYTES
              + ", "
              + MAX_CHUNK_BYTES
              + "]");
    }
  }

  /** Number of chunks for a plaintext of {@code plaintextBytes} (at least 1). */
  public static long chunkCount(long plaintextBytes, int chunkSize) {
    return Math.max(1, (plaintextBytes + chunkSize - 1) / chunkSize);
  }

  /** Ciphertext size for a plaintext of {@code plaintextBytes}. */
  public static long ciphertextLength(long plaintextBytes, int chunkSize) {
    return Math.addExact(
        plaintextBytes, Math.multiplyExact(TAG_BYTES, chunkCount(plaintextBytes, chunkSize)));
  }

  /**
   * Encrypts exactly {@code plaintextBytes} from {@code in} to {@code out}.
   *
   * @param progress called with the plaintext bytes done so far, after each chunk
   */
  public void encrypt(InputStream in, long plaintextBytes, OutputStream out, LongConsumer progress)
      throws IOException {
    long chunks = chunkCount(plaintextBytes, chunkSize);
    byte[] plain = new byte[chunkSize];
    byte[] sealed = new byte[chunkSize + TAG_BYTES];
    long done = 0;
    for (long i = 0; i < chunks; i++) {
      int length = (int) Math.min(chunkSize, plaintextBytes - done);
      int read = in.readNBytes(plain, 0, length);
      if (read != length) {
        throw new IOException("payload ended after " + (done + read) + " of " + plaintextBytes);
      }
      try {
        int n = cipher(Cipher.ENCRYPT_MODE, i, i == chunks - 1).doFinal(plain, 0, length, sealed);
        out.write(sealed, 0, n);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES-GCM encryption failed", e);
      }
      done += length;
      progress.accept(done);
    }
  }

  /**
   * Decrypts a payload of {@code ciphertextBytes} from {@code in} to {@code out}, chunk by chunk.
   * The caller has checked {@code ciphertextBytes} against {@link #ciphertextLength} for the
   * declared plaintext size; output is written only after each chunk authenticates, but a caller
   * must still discard all output if a later chunk fails.
   *
   * @param progress called with the ciphertext bytes done so far, after each chunk
   * @throws ChunkAuthenticationException naming the first chunk that fails
   */
  public void decrypt(InputStream in, long ciphertextBytes, OutputStream out, LongConsumer progress)
      throws IOException, ChunkAuthenticationException {
    long sealedChunk = chunkSize + TAG_BYTES;
    long chunks = Math.max(1, (ciphertextBytes + sealedChunk - 1) / sealedChunk);
    byte[] sealed = new byte[chunkSize + TAG_BYTES];
    byte[] plain = new byte[chunkSize];
    long done = 0;
    for (long i = 0; i < chunks; i++) {
      int length = (int) Math.min(sealedChunk, ciphertextBytes - done);
      if (length < TAG_BYTES) {
        throw new ChunkAuthenticationException(
            "payload chunk " + i + " is " + length + " bytes, shorter than its tag");
      }
      int read = in.readNBytes(sealed, 0, length);
      if (read != length) {
        throw new ChunkAuthenticationException(
            "payload ends inside chunk " + i + " at ciphertext offset " + (done + read));
      }
      try {
        int n = cipher(Cipher.DECRYPT_MODE, i, i == chunks - 1).doFinal(sealed, 0, length, plain);
        out.write(plain, 0, n);
      } catch (AEADBadTagException e) {
        throw new ChunkAuthenticationException(
            "payload chunk "
                + i
                + " (ciphertext offset "
                + done
                + ") fails authentication: tampered, reordered, truncated or from another package",
            e);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES-GCM decryption failed", e);
      }
      done += length;
      progress.accept(done);
    }
  }

  private Cipher cipher(int mode, long index, boolean last) throws GeneralSecurityException {
    byte[] nonce = ByteBuffer.allocate(12).putInt(0).putLong(index).array();
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(mode, key, new GCMParameterSpec(TAG_BYTES * 8, nonce));
    cipher.updateAAD(
        Frames.encode(
            "TGSP-v2 chunk",
            manifestSha256,
            ByteBuffer.allocate(8).putLong(index).array(),
            new byte[] {(byte) (last ? 1 : 0)}));
    return cipher;
  }
}
