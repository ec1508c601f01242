package io.tensafe.tgsp.container;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.crypto.CreatorPublicKey;
import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.KeyFiles;
import io.tensafe.tgsp.crypto.TrustStore;
import io.tensafe.tgsp.packaging.AdapterOpener;
import io.tensafe.tgsp.peft.PeftAdapter;
import io.tensafe.tgsp.testing.SmallPackage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Committed packages built with deterministic test keys and randomness ({@link SmallPackage}) must
 * stay readable, and rebuilding them must give the same bytes. To regenerate after a deliberate
 * format change: {@code ./mvnw -pl tgsp-format test -Dtest=GoldenVectorTest
 * -Dtgsp.golden.write=true} (then bump the format version: old files must keep their meaning; an
 * optional field added, as {@code lora.private_bounds} was, keeps the old file beside the new one).
 */
class GoldenVectorTest {
  static final Path GOLDEN = Path.of("src/test/resources/golden");

  @TempDir Path dir;

  @Test
  void rebuild_sameSeeds_givesTheCommittedBytes() throws Exception {
    SmallPackage rebuilt = SmallPackage.create(dir, "small");
    assertArrayEquals(
        Files.readAllBytes(GOLDEN.resolve("small-v2.tgsp")), Files.readAllBytes(rebuilt.file()));
  }

  @Test
  void open_committedPackageWithCommittedKeys_givesTheFixtureTensors() throws Exception {
    CreatorPublicKey creator = KeyFiles.readCreatorPublic(GOLDEN.resolve("creator.pub"));
    FleetKeyPair fleet = KeyFiles.readFleetPrivate(GOLDEN.resolve("fleet.key"));
    Path out = dir.resolve("opened");
    var verified =
        AdapterOpener.open(
            GOLDEN.resolve("small-v2.tgsp"), TrustStore.of(List.of(creator)), fleet, out, d -> {});
    assertEquals("banking-helper", verified.manifest().adapter().id());
    SmallPackage rebuilt = SmallPackage.create(dir, "fixture");
    assertArrayEquals(
        Files.readAllBytes(dir.resolve("fixture-peft").resolve(PeftAdapter.WEIGHTS_FILE)),
        Files.readAllBytes(out.resolve(PeftAdapter.WEIGHTS_FILE)));
    assertEquals(rebuilt.creator().publicKey().keyId(), creator.keyId());
  }

  /**
   * A package committed before packs signed {@code lora.private_bounds} (issue 33) keeps its
   * meaning: it opens, without the bounds (such a version serves hosted mode only).
   */
  @Test
  void open_packageFromBeforePrivateBounds_opensWithoutThem() throws Exception {
    CreatorPublicKey creator = KeyFiles.readCreatorPublic(GOLDEN.resolve("creator.pub"));
    FleetKeyPair fleet = KeyFiles.readFleetPrivate(GOLDEN.resolve("fleet.key"));
    var old =
        AdapterOpener.open(
            GOLDEN.resolve("small-v2-without-private-bounds.tgsp"),
            TrustStore.of(List.of(creator)),
            fleet,
            dir.resolve("old"),
            d -> {});
    assertTrue(old.manifest().lora().privateBounds().isEmpty());
    var current =
        AdapterOpener.open(
            GOLDEN.resolve("small-v2.tgsp"),
            TrustStore.of(List.of(creator)),
            fleet,
            dir.resolve("current"),
            d -> {});
    assertTrue(current.manifest().lora().privateBounds().isPresent());
  }

  @Test
  @EnabledIfSystemProperty(named = "tgsp.golden.write", matches = "true")
  void writeGoldenVectors() throws Exception {
    Files.createDirectories(GOLDEN);
    SmallPackage pkg = SmallPackage.create(dir, "small");
    Files.copy(
        pkg.file(),
        GOLDEN.resolve("small-v2.tgsp"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.deleteIfExists(GOLDEN.resolve("creator.pub"));
    Files.deleteIfExists(GOLDEN.resolve("fleet.key"));
    KeyFiles.writeCreatorPublic(pkg.creator().publicKey(), GOLDEN.resolve("creator.pub"));
    KeyFiles.writeFleetPrivate(pkg.fleet(), GOLDEN.resolve("fleet.key"));
  }
}
