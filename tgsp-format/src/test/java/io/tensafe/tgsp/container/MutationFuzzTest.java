package io.tensafe.tgsp.container;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tensafe.tgsp.TgspException;
import io.tensafe.tgsp.crypto.HybridSignature;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.io.FileTrees;
import io.tensafe.tgsp.json.JsonLimits;
import io.tensafe.tgsp.json.JsonParser;
import io.tensafe.tgsp.manifest.ManifestCodec;
import io.tensafe.tgsp.packaging.AdapterOpener;
import io.tensafe.tgsp.safetensors.SafetensorsFile;
import io.tensafe.tgsp.testing.Fixtures;
import io.tensafe.tgsp.testing.SmallPackage;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded mutation fuzzer (no coverage-guided fuzzer is wired in; see docs/tgsp-v2.md): 100,000
 * mutated inputs across the package reader and each parser of untrusted bytes. Each must either
 * parse or raise a {@link TgspException}; anything else (an unchecked exception, an error) fails,
 * and so does any case that allocates more than {@link #MAX_ALLOCATION_BYTES}.
 */
class MutationFuzzTest {
  static final long MAX_ALLOCATION_BYTES = 48L << 20;
  static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @TempDir static Path dir;
  static SmallPackage pkg;
  static byte[] packageBytes;
  static PackagePrefix prefix;
  static long maxAllocated;

  @BeforeAll
  static void build() throws Exception {
    pkg = SmallPackage.create(dir, "fuzz");
    packageBytes = Files.readAllBytes(pkg.file());
    prefix = PackagePrefix.decode(Arrays.copyOf(packageBytes, PackagePrefix.BYTES));
  }

  interface Target {
    void accept(byte[] input) throws Exception;
  }

  @Test
  void packageReader_60000MutatedFiles_raiseOnlyDeclaredExceptions() throws Exception {
    Path file = dir.resolve("case.tgsp");
    Path out = dir.resolve("out");
    run(
        60_000,
        101,
        packageBytes,
        input -> {
          Files.write(file, input);
          AdapterOpener.open(file, pkg.trust(), pkg.fleet(), out, d -> {});
          fail("a mutated package opened");
        });
  }

  @Test
  void packageReader_2000MutatedManifestsResigned_reachTheSchemaChecks() throws Exception {
    Path file = dir.resolve("resigned.tgsp");
    Path out = dir.resolve("out-resigned");
    int manifestEnd = PackagePrefix.BYTES + prefix.manifestLength();
    byte[] manifest = Arrays.copyOfRange(packageBytes, PackagePrefix.BYTES, manifestEnd);
    run(
        2_000,
        202,
        manifest,
        mutatedManifest -> {
          Files.write(file, resigned(mutatedManifest));
          try {
            AdapterOpener.open(file, pkg.trust(), pkg.fleet(), out, d -> {});
          } finally {
            FileTrees.deleteRecursively(out);
          }
        });
  }

  @Test
  void parsers_38000MutatedDocuments_raiseOnlyDeclaredExceptions() throws Exception {
    byte[] manifest =
        Arrays.copyOfRange(
            packageBytes, PackagePrefix.BYTES, PackagePrefix.BYTES + prefix.manifestLength());
    int recipientsStart = PackagePrefix.BYTES + prefix.manifestLength();
    byte[] recipients =
        Arrays.copyOfRange(
            packageBytes, recipientsStart, recipientsStart + prefix.recipientsLength());
    run(14_000, 303, manifest, ManifestCodec::decode);
    run(6_000, 404, recipients, RecipientsCodec::decode);
    run(4_000, 505, Arrays.copyOf(packageBytes, PackagePrefix.BYTES), PackagePrefix::decode);
    Path peft =
        Fixtures.peftFolder(
            dir.resolve("peft"), 1, 16, 2, io.tensafe.tgsp.safetensors.DType.F32, 1);
    byte[] safetensors = Files.readAllBytes(peft.resolve("adapter_model.safetensors"));
    Path st = dir.resolve("case.safetensors");
    run(
        8_000,
        606,
        safetensors,
        input -> {
          Files.write(st, input);
          try (SafetensorsFile f = SafetensorsFile.open(st)) {
            for (var t : f.header().tensors()) {
              f.read(t);
            }
          }
        });
    KeyFiles.writeCreatorPublic(pkg.creator().publicKey(), dir.resolve("creator.pub"));
    byte[] keyFile = Files.readAllBytes(dir.resolve("creator.pub"));
    run(4_000, 707, keyFile, input -> KeyFiles.parseCreatorPublic("fuzz", input));
    run(2_000, 808, keyFile, input -> JsonParser.parse("fuzz", input, JsonLimits.document()));
    assertTrue(maxAllocated < MAX_ALLOCATION_BYTES);
  }

  private static void run(int cases, long seed, byte[] original, Target target) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < cases; i++) {
      byte[] input = mutate(original, random);
      if (Arrays.equals(input, original)) {
        input = Arrays.copyOf(original, original.length + 1); // a no-op edit: add a trailing byte
      }
      long before = THREADS.getCurrentThreadAllocatedBytes();
      try {
        target.accept(input);
      } catch (TgspException expected) {
        // declared
      } catch (Throwable t) {
        throw new AssertionError("case " + i + " of seed " + seed + " raised " + t, t);
      }
      long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
      maxAllocated = Math.max(maxAllocated, allocated);
      if (allocated > MAX_ALLOCATION_BYTES) {
        fail("case " + i + " of seed " + seed + " allocated " + allocated + " bytes");
      }
    }
  }

  /**
   * One to four random edits: bit flips, interesting bytes, length-field extremes, cuts, inserts.
   */
  static byte[] mutate(byte[] original, SplittableRandom random) {
    byte[] b = original.clone();
    int edits = 1 + random.nextInt(4);
    for (int e = 0; e < edits && b.length > 0; e++) {
      int at = random.nextInt(b.length);
      switch (random.nextInt(7)) {
        case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
        case 1 ->
            b[at] =
                new byte[] {0, (byte) 0xFF, 0x7F, (byte) 0x80, '"', '{', '9'}[random.nextInt(7)];
        case 2 -> {
          int field = random.nextInt(Math.max(1, Math.min(b.length, 40) - 4));
          int value =
              new int[] {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 4096, 1 << 24}
                  [random.nextInt(7)];
          if (b.length >= 4) {
            ByteBuffer.wrap(b).putInt(field, value);
          }
        }
        case 3 -> b = Arrays.copyOf(b, random.nextInt(b.length + 1));
        case 4 -> {
          byte[] grown = new byte[b.length + 1 + random.nextInt(16)];
          System.arraycopy(b, 0, grown, 0, at);
          for (int i = at; i < at + grown.length - b.length; i++) {
            grown[i] = (byte) random.nextInt(256);
          }
          System.arraycopy(b, at, grown, at + grown.length - b.length, b.length - at);
          b = grown;
        }
        case 5 -> {
          int length = Math.min(b.length - at, 1 + random.nextInt(64));
          int to = random.nextInt(b.length - length + 1);
          System.arraycopy(b.clone(), at, b, to, length);
        }
        default -> b[at] = (byte) random.nextInt(256);
      }
    }
    return b;
  }

  /** The package with a new manifest, lengths fixed up and a fresh valid signature. */
  private static byte[] resigned(byte[] manifest) {
    int oldManifest = prefix.manifestLength();
    byte[] recipients =
        Arrays.copyOfRange(
            packageBytes,
            PackagePrefix.BYTES + oldManifest,
            PackagePrefix.BYTES + oldManifest + prefix.recipientsLength());
    byte[] payload =
        Arrays.copyOfRange(packageBytes, (int) prefix.payloadOffset(), packageBytes.length);
    PackagePrefix p =
        new PackagePrefix(
            manifest.length,
            prefix.recipientsLength(),
            prefix.signatureLength(),
            prefix.chunkSize(),
            prefix.payloadLength(),
            prefix.creatorKeyId(),
            prefix.payloadSha256());
    byte[] prefixBytes = p.encode();
    byte[] signature =
        HybridSignature.sign(
                pkg.creator(),
                PackageWriter.signedMessage(prefixBytes, manifest, recipients),
                Fixtures.deterministicRandomForTesting(5))
            .encode();
    ByteBuffer out =
        ByteBuffer.allocate(
            prefixBytes.length
                + manifest.length
                + recipients.length
                + signature.length
                + payload.length);
    return out.put(prefixBytes).put(manifest).put(recipients).put(signature).put(payload).array();
  }
}
