package io.tensafe.tgsp.container;

import io.tensafe.tgsp.crypto.CreatorKeyPair;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import io.tensafe.tgsp.crypto.Frames;
import io.tensafe.tgsp.crypto.HybridKeyWrap;
import io.tensafe.tgsp.crypto.HybridSignature;
import io.tensafe.tgsp.crypto.PayloadCipher;
import io.tensafe.tgsp.crypto.RecipientEntry;
import io.tensafe.tgsp.manifest.Manifest;
import io.tensafe.tgsp.manifest.ManifestCodec;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Writes a TGSP v2 file: encrypts the payload under a fresh data key, wraps the key for each
 * recipient fleet, signs prefix ‖ manifest ‖ recipients with the creator's hybrid key. The file
 * appears at its final path only when complete (temp file in the same directory, then an atomic
 * move); on failure nothing is left behind.
 */
public final class PackageWriter {
  private PackageWriter() {}

  /**
   * Packs {@code payload} (a checked safetensors file whose size and SHA-256 the manifest already
   * declares).
   *
   * @param random the source of the data key, KEM and signature randomness: a CSPRNG outside tests
   * @param progress called with the payload bytes encrypted so far
   * @return the prefix written
   */
  public static PackagePrefix write(
      Path payload,
      Manifest manifest,
      CreatorKeyPair creator,
      List<FleetPublicKey> recipients,
      int chunkSize,
      SecureRandom random,
      Path output,
      LongConsumer progress)
      throws IOException {
    PayloadCipher.requireChunkSize(chunkSize);
    if (!manifest.creator().keyId().equals(creator.publicKey().keyId())
        || !manifest.creator().id().equals(creator.publicKey().creatorId())) {
      throw new IllegalArgumentException("the manifest's creator and key id must be the signer's");
    }
    if (recipients.isEmpty()
        || recipients.size() > RecipientsCodec.MAX_RECIPIENTS
        || new HashSet<>(recipients.stream().map(FleetPublicKey::keyId).toList()).size()
            != recipients.size()) {
      throw new IllegalArgumentException("a package needs 1 to 64 distinct recipient fleets");
    }
    long plaintextBytes = Files.size(payload);
    if (plaintextBytes != manifest.payload().plaintextBytes()) {
      throw new IllegalArgumentException("the manifest's payload size does not match the file");
    }
    byte[] manifestBytes = ManifestCodec.encode(manifest);
    byte[] manifestHash = Frames.sha256(manifestBytes);
    byte[] dataKey = new byte[HybridKeyWrap.DATA_KEY_BYTES];
    random.nextBytes(dataKey);
    List<RecipientEntry> entries = new ArrayList<>();
    for (FleetPublicKey fleet : recipients) {
      entries.add(HybridKeyWrap.wrap(fleet, dataKey, manifestHash, random));
    }
    byte[] recipientBytes = RecipientsCodec.encode(entries);
    long payloadLength = PayloadCipher.ciphertextLength(plaintextBytes, chunkSize);
    long payloadOffset =
        (long) PackagePrefix.BYTES
            + manifestBytes.length
            + recipientBytes.length
            + HybridSignature.ENCODED_BYTES;

    Path dir = output.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    // Packages are public (encrypted, signed): readable by all, like any file a creator uploads.
    Path temp =
        Files.createTempFile(
            dir,
            ".tgsp-pack-",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
    try {
      MessageDigest ciphertextDigest = Frames.sha256();
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        channel.position(payloadOffset);
        OutputStream out =
            new DigestOutputStream(
                new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16),
                ciphertextDigest);
        try (InputStream in = Files.newInputStream(payload)) {
          new PayloadCipher(dataKey, manifestHash, chunkSize)
              .encrypt(in, plaintextBytes, out, progress);
        }
        out.flush();
        PackagePrefix prefix =
            new PackagePrefix(
                manifestBytes.length,
                recipientBytes.length,
                HybridSignature.ENCODED_BYTES,
                chunkSize,
                payloadLength,
                HexFormat.of().parseHex(creator.publicKey().keyId()),
                ciphertextDigest.digest());
        byte[] prefixBytes = prefix.encode();
        byte[] signature =
            HybridSignature.sign(
                    creator, signedMessage(prefixBytes, manifestBytes, recipientBytes), random)
                .encode();
        writeAt(channel, 0, prefixBytes, manifestBytes, recipientBytes, signature);
        channel.force(true);
        Files.move(
            temp, output, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return prefix;
      }
    } finally {
      Files.deleteIfExists(temp);
      java.util.Arrays.fill(dataKey, (byte) 0);
    }
  }

  /**
   * What the hybrid signature covers: {@code Frames("TGSP-v2 package", prefix, manifest,
   * recipients)}.
   */
  static byte[] signedMessage(byte[] prefix, byte[] manifest, byte[] recipients) {
    return Frames.encode("TGSP-v2 package", prefix, manifest, recipients);
  }

  private static void writeAt(FileChannel channel, long position, byte[]... parts)
      throws IOException {
    for (byte[] part : parts) {
      ByteBuffer buffer = ByteBuffer.wrap(part);
      while (buffer.hasRemaining()) {
        position += channel.write(buffer, position);
      }
    }
  }
}
