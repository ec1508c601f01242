package io.tensafe.tgsp.container;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.CreatorPublicKey;
import io.tensafe.tgsp.crypto.DigestMismatchException;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.Frames;
import io.tensafe.tgsp.crypto.HybridKeyWrap;
import io.tensafe.tgsp.crypto.HybridSignature;
import io.tensafe.tgsp.crypto.NotARecipientException;
import io.tensafe.tgsp.crypto.PayloadCipher;
import io.tensafe.tgsp.crypto.RecipientEntry;
import io.tensafe.tgsp.crypto.TrustStore;
import io.tensafe.tgsp.crypto.UnknownSignerException;
import io.tensafe.tgsp.io.TrailingBytesException;
import io.tensafe.tgsp.io.TruncatedInputException;
import io.tensafe.tgsp.json.JsonSchemaException;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.manifest.ManifestCodec;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Reads TGSP v2 files, checking in this order: prefix and limits (and the file size they imply),
 * the hybrid signature against the caller's trust store, the manifest schema, the recipients, then
 * (streaming) the payload: decryption, digests, safetensors header and shapes against the manifest.
 * Nothing is parsed before the signature verifies except the fixed prefix; {@link #inspect} is the
 * one, explicitly unverified, exception.
 */
public final class PackageReader {
  private PackageReader() {}

  /** The signed sections of a file, read after the prefix checks. */
  record Sections(
      PackagePrefix prefix,
      byte[] prefixBytes,
      byte[] manifest,
      byte[] recipients,
      byte[] signature) {}

  /** What {@link #inspect} shows: not verified by anyone. */
  public record Inspection(PackagePrefix prefix, Manifest manifest, List<String> recipientIds) {}

  /** A package whose signature, manifest, recipients and payload digest all checked out. */
  public record VerifiedPackage(
      PackagePrefix prefix,
      Manifest manifest,
      CreatorPublicKey signer,
      List<RecipientEntry> recipients) {
    /** "adapter@version by creator/keyid", for logs and CLI output. */
    public String describe() {
      return manifest.adapter().id()
          + "@"
          + manifest.adapter().version()
          + " by "
          + signer.creatorId()
          + "/"
          + signer.keyId();
    }
  }

  /**
   * Parses the manifest and recipient ids <em>without</em> verifying the signature (no key needed).
   * The result is untrusted: for display only, never for decisions.
   */
  public static Inspection inspect(Path file) throws IOException, TgspException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      Sections s = readSections(channel);
      return new Inspection(
          s.prefix(),
          ManifestCodec.decode(s.manifest()),
          RecipientsCodec.decode(s.recipients()).stream()
              .map(RecipientEntry::recipientId)
              .toList());
    }
  }

  /**
   * Verifies everything a party without a fleet key can: structure, signature (both halves, key
   * from {@code trust}), manifest, recipients, and the payload's ciphertext digest (streamed).
   */
  public static VerifiedPackage verify(Path file, TrustStore trust, LongConsumer progress)
      throws IOException, TgspException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      VerifiedPackage verified = authenticate(readSections(channel), trust);
      MessageDigest digest = Frames.sha256();
      try (InputStream in = payloadStream(channel, verified.prefix())) {
        byte[] buffer = new byte[1 << 16];
        long done = 0;
        for (int n; (n = in.read(buffer)) > 0; ) {
          digest.update(buffer, 0, n);
          done += n;
          progress.accept(done);
        }
      }
      checkDigest("payload ciphertext", verified.prefix().payloadSha256(), digest.digest());
      return verified;
    }
  }

  /**
   * Verifies, then decrypts the payload for {@code fleet} into {@code plaintextOut} (streamed,
   * never held in memory). The caller must discard what was written if this throws. Checks both
   * payload digests before returning.
   *
   * @param progress called with the payload ciphertext bytes processed so far
   */
  public static VerifiedPackage decrypt(
      Path file,
      TrustStore trust,
      FleetKeyPair fleet,
      OutputStream plaintextOut,
      LongConsumer progress)
      throws IOException, TgspException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      VerifiedPackage verified = authenticate(readSections(channel), trust);
      String fleetId = fleet.publicKey().keyId();
      RecipientEntry entry =
          verified.recipients().stream()
              .filter(e -> e.recipientId().equals(fleetId))
              .findFirst()
              .orElseThrow(
                  () ->
                      new NotARecipientException(
                          "the package is not encrypted to fleet key "
                              + fleetId
                              + "; its recipients are "
                              + verified.recipients().stream()
                                  .map(RecipientEntry::recipientId)
                                  .toList()));
      byte[] manifestHash = Frames.sha256(ManifestCodec.encode(verified.manifest()));
      byte[] dataKey = HybridKeyWrap.unwrap(fleet, entry, manifestHash);
      MessageDigest ciphertextDigest = Frames.sha256();
      MessageDigest plaintextDigest = Frames.sha256();
      try (InputStream in =
          new DigestInputStream(payloadStream(channel, verified.prefix()), ciphertextDigest)) {
        OutputStream out = new java.security.DigestOutputStream(plaintextOut, plaintextDigest);
        new PayloadCipher(dataKey, manifestHash, verified.prefix().chunkSize())
            .decrypt(in, verified.prefix().payloadLength(), out, progress);
        out.flush();
      } finally {
        Arrays.fill(dataKey, (byte) 0);
      }
      checkDigest(
          "payload ciphertext", verified.prefix().payloadSha256(), ciphertextDigest.digest());
      checkDigest(
          "payload plaintext",
          HexFormat.of().parseHex(verified.manifest().payload().plaintextSha256()),
          plaintextDigest.digest());
      return verified;
    }
  }

  static Sections readSections(FileChannel channel) throws IOException, TgspException {
    long size = channel.size();
    if (size < PackagePrefix.BYTES) {
      throw new TruncatedInputException("prefix", PackagePrefix.BYTES, size);
    }
    byte[] prefixBytes = read(channel, 0, PackagePrefix.BYTES);
    PackagePrefix prefix = PackagePrefix.decode(prefixBytes);
    if (size < prefix.fileLength()) {
      throw new TruncatedInputException("package", prefix.fileLength(), size);
    }
    if (size > prefix.fileLength()) {
      throw new TrailingBytesException(
          "package", (int) Math.min(Integer.MAX_VALUE, size - prefix.fileLength()));
    }
    long offset = PackagePrefix.BYTES;
    byte[] manifest = read(channel, offset, prefix.manifestLength());
    offset += prefix.manifestLength();
    byte[] recipients = read(channel, offset, prefix.recipientsLength());
    offset += prefix.recipientsLength();
    byte[] signature = read(channel, offset, prefix.signatureLength());
    return new Sections(prefix, prefixBytes, manifest, recipients, signature);
  }

  static VerifiedPackage authenticate(Sections s, TrustStore trust) throws TgspException {
    String keyId = s.prefix().creatorKeyIdHex();
    CreatorPublicKey signer =
        trust
            .find(keyId)
            .orElseThrow(
                () ->
                    new UnknownSignerException(
                        "creator key "
                            + keyId
                            + " is not in the trust store ("
                            + trust.size()
                            + " keys)"));
    HybridSignature.decode(s.signature())
        .verify(signer, PackageWriter.signedMessage(s.prefixBytes(), s.manifest(), s.recipients()));
    Manifest manifest = ManifestCodec.decode(s.manifest());
    if (!manifest.creator().keyId().equals(keyId)
        || !manifest.creator().id().equals(signer.creatorId())) {
      throw new JsonSchemaException(
          "manifest.creator",
          "names "
              + manifest.creator().id()
              + "/"
              + manifest.creator().keyId()
              + " but the package was signed by "
              + signer.creatorId()
              + "/"
              + keyId);
    }
    List<RecipientEntry> recipients = RecipientsCodec.decode(s.recipients());
    long expected =
        PayloadCipher.ciphertextLength(manifest.payload().plaintextBytes(), s.prefix().chunkSize());
    if (expected != s.prefix().payloadLength()) {
      throw new MalformedPackageException(
          "payload length is "
              + s.prefix().payloadLength()
              + " but a plaintext of "
              + manifest.payload().plaintextBytes()
              + " bytes in chunks of "
              + s.prefix().chunkSize()
              + " encrypts to "
              + expected);
    }
    return new VerifiedPackage(s.prefix(), manifest, signer, recipients);
  }

  private static InputStream payloadStream(FileChannel channel, PackagePrefix prefix)
      throws IOException {
    channel.position(prefix.payloadOffset());
    return new BufferedInputStream(Channels.newInputStream(channel), 1 << 16);
  }

  private static void checkDigest(String what, byte[] declared, byte[] actual)
      throws DigestMismatchException {
    if (!MessageDigest.isEqual(declared, actual)) {
      throw new DigestMismatchException(
          what
              + " SHA-256 is "
              + HexFormat.of().formatHex(actual)
              + " but the package declares "
              + HexFormat.of().formatHex(declared));
    }
  }

  private static byte[] read(FileChannel channel, long position, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, position + buffer.position());
      if (n < 0) {
        throw new IOException("file shrank while being read");
      }
    }
    return buffer.array();
  }
}
