package io.tensafe.tgsp.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.ChunkAuthenticationException;
import io.tensafe.tgsp.crypto.DigestMismatchException;
import io.tensafe.tgsp.crypto.HybridSignature;
import io.tensafe.tgsp.crypto.NotARecipientException;
import io.tensafe.tgsp.crypto.SignatureInvalidException;
import io.tensafe.tgsp.crypto.TrustStore;
import io.tensafe.tgsp.crypto.UnknownSignerException;
import io.tensafe.tgsp.io.LimitExceededException;
import io.tensafe.tgsp.io.TrailingBytesException;
import io.tensafe.tgsp.io.TruncatedInputException;
import io.tensafe.tgsp.packaging.AdapterOpener;
import io.tensafe.tgsp.testing.Fixtures;
import io.tensafe.tgsp.testing.SmallPackage;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every single-byte change and every truncation of a valid package fails, with the right type. */
class TamperTest {
  @TempDir static Path dir;
  static SmallPackage pkg;
  static byte[] bytes;
  static PackagePrefix prefix;

  @BeforeAll
  static void build() throws Exception {
    pkg = SmallPackage.create(dir, "small");
    bytes = Files.readAllBytes(pkg.file());
    prefix = PackagePrefix.decode(Arrays.copyOf(bytes, PackagePrefix.BYTES));
  }

  /** The exception types a change at {@code offset} may legitimately raise. */
  static Set<Class<?>> expectedAt(int offset) {
    long manifestStart = PackagePrefix.BYTES;
    long recipientsStart = manifestStart + prefix.manifestLength();
    long payloadStart = prefix.payloadOffset();
    if (offset < 8) {
      return Set.of(MalformedPackageException.class); // magic, version, flags
    }
    if (offset < 20 || (offset >= 24 && offset < 32)) { // section and payload lengths
      return Set.of(
          LimitExceededException.class,
          TruncatedInputException.class,
          TrailingBytesException.class,
          MalformedPackageException.class);
    }
    if (offset < 24) { // chunk size: out of range, or in range and then unsigned
      return Set.of(LimitExceededException.class, SignatureInvalidException.class);
    }
    if (offset < 48) {
      return Set.of(UnknownSignerException.class); // creator key id
    }
    if (offset < payloadStart) {
      return Set.of(SignatureInvalidException.class); // digest, manifest, recipients, signature
    }
    assertTrue(recipientsStart < payloadStart);
    return Set.of(ChunkAuthenticationException.class);
  }

  @Test
  void open_everySingleByteFlipped_failsWithTheRegionsException() throws Exception {
    Path mutated = dir.resolve("mutated.tgsp");
    for (int offset = 0; offset < bytes.length; offset++) {
      byte[] copy = bytes.clone();
      copy[offset] ^= (byte) 0xFF;
      Files.write(mutated, copy);
      Class<?> thrown = openFailure(mutated, pkg.trust());
      if (!expectedAt(offset).contains(thrown)) {
        fail(
            "flip at offset "
                + offset
                + " raised "
                + thrown.getSimpleName()
                + ", expected one of "
                + expectedAt(offset));
      }
    }
  }

  @Test
  void verify_payloadByteFlipped_failsWithDigestMismatch() throws Exception {
    Path mutated = dir.resolve("payload-flip.tgsp");
    for (long offset = prefix.payloadOffset(); offset < bytes.length; offset += 97) {
      byte[] copy = bytes.clone();
      copy[(int) offset] ^= 1;
      Files.write(mutated, copy);
      assertThrows(
          DigestMismatchException.class, () -> PackageReader.verify(mutated, pkg.trust(), d -> {}));
    }
  }

  @Test
  void open_truncatedAtEveryOffset_failsAsTruncated() throws Exception {
    Path truncated = dir.resolve("truncated.tgsp");
    for (int length = 0; length < bytes.length; length++) {
      Files.write(truncated, Arrays.copyOf(bytes, length));
      assertEquals(
          TruncatedInputException.class,
          openFailure(truncated, pkg.trust()),
          "truncated to " + length + " bytes");
    }
  }

  @Test
  void open_trailingByte_failsAsTrailingBytes() throws Exception {
    Path longer = dir.resolve("longer.tgsp");
    Files.write(longer, Arrays.copyOf(bytes, bytes.length + 1));
    assertEquals(TrailingBytesException.class, openFailure(longer, pkg.trust()));
  }

  @Test
  void open_signatureWithOnlyOneValidHalf_failsNamingTheOtherAlgorithm() throws Exception {
    int signatureStart =
        (int) (PackagePrefix.BYTES + prefix.manifestLength() + prefix.recipientsLength());
    byte[] signature =
        Arrays.copyOfRange(bytes, signatureStart, signatureStart + HybridSignature.ENCODED_BYTES);
    HybridSignature valid = HybridSignature.decode(signature);
    HybridSignature other =
        HybridSignature.sign(
            Fixtures.creator(1), new byte[] {1, 2, 3}, Fixtures.deterministicRandomForTesting(9));
    for (boolean keepEd25519 : List.of(true, false)) {
      HybridSignature mixed =
          keepEd25519
              ? new HybridSignature(valid.ed25519(), other.mlDsa65())
              : new HybridSignature(other.ed25519(), valid.mlDsa65());
      byte[] copy = bytes.clone();
      System.arraycopy(mixed.encode(), 0, copy, signatureStart, HybridSignature.ENCODED_BYTES);
      Path file = dir.resolve("one-half.tgsp");
      Files.write(file, copy);
      SignatureInvalidException e =
          assertThrows(
              SignatureInvalidException.class,
              () -> PackageReader.verify(file, pkg.trust(), d -> {}));
      assertTrue(
          e.getMessage()
              .contains(keepEd25519 ? "the ML-DSA-65 signature" : "the Ed25519 signature"),
          e.getMessage());
    }
  }

  @Test
  void verify_unknownCreatorKey_failsAsUnknownSigner() {
    TrustStore stranger = TrustStore.of(List.of(Fixtures.creator(99).publicKey()));
    assertThrows(
        UnknownSignerException.class, () -> PackageReader.verify(pkg.file(), stranger, d -> {}));
    assertThrows(
        UnknownSignerException.class,
        () -> PackageReader.verify(pkg.file(), TrustStore.of(List.of()), d -> {}));
  }

  @Test
  void open_wrongFleetKey_failsAsNotARecipient() {
    Path out = dir.resolve("wrong-fleet");
    assertThrows(
        NotARecipientException.class,
        () -> AdapterOpener.open(pkg.file(), pkg.trust(), Fixtures.fleet(77), out, d -> {}));
    assertFalse(Files.exists(out));
  }

  @Test
  void decrypt_chunksSwappedOrReordered_failsAuthentication() throws Exception {
    SmallPackage a = SmallPackage.create(dir, "multi-a", 2, 256, 4096, 11);
    SmallPackage b = SmallPackage.create(dir, "multi-b", 2, 256, 4096, 12);
    byte[] bytesA = Files.readAllBytes(a.file());
    byte[] bytesB = Files.readAllBytes(b.file());
    PackagePrefix p = PackagePrefix.decode(Arrays.copyOf(bytesA, PackagePrefix.BYTES));
    int sealed = p.chunkSize() + 16;
    int chunk1 = (int) p.payloadOffset() + sealed;
    assertTrue(chunk1 + 2 * sealed <= bytesA.length, "the payload must span at least three chunks");

    byte[] spliced = bytesA.clone(); // chunk 1 from another package (other data key)
    System.arraycopy(bytesB, chunk1, spliced, chunk1, sealed);
    assertEquals(ChunkAuthenticationException.class, decryptFailure(spliced, a));

    byte[] reordered = bytesA.clone(); // chunks 0 and 1 swapped
    int chunk0 = (int) p.payloadOffset();
    System.arraycopy(bytesA, chunk1, reordered, chunk0, sealed);
    System.arraycopy(bytesA, chunk0, reordered, chunk1, sealed);
    assertEquals(ChunkAuthenticationException.class, decryptFailure(reordered, a));
  }

  @Test
  void verify_recipientsSwappedBetweenPackages_failsSignature() throws Exception {
    SmallPackage other = SmallPackage.create(dir, "other", 1, 16, 4096, 21);
    byte[] bytesOther = Files.readAllBytes(other.file());
    int start = PackagePrefix.BYTES + prefix.manifestLength();
    byte[] swapped = bytes.clone();
    System.arraycopy(bytesOther, start, swapped, start, prefix.recipientsLength());
    Path file = dir.resolve("swapped.tgsp");
    Files.write(file, swapped);
    assertThrows(
        SignatureInvalidException.class, () -> PackageReader.verify(file, pkg.trust(), d -> {}));
  }

  private static Class<?> decryptFailure(byte[] fileBytes, SmallPackage owner) throws Exception {
    Path file = dir.resolve("chunks.tgsp");
    Files.write(file, fileBytes);
    try {
      PackageReader.decrypt(
          file, owner.trust(), owner.fleet(), new ByteArrayOutputStream(), d -> {});
    } catch (TgspException e) {
      return e.getClass();
    }
    return fail("decryption of a modified payload succeeded");
  }

  private static Class<?> openFailure(Path file, TrustStore trust) throws Exception {
    Path out = dir.resolve("out");
    try {
      AdapterOpener.open(file, trust, pkg.fleet(), out, d -> {});
    } catch (TgspException e) {
      assertFalse(Files.exists(out), "a failed open left its output folder behind");
      return e.getClass();
    }
    return fail("a modified package opened");
  }
}
