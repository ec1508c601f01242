package io.tensafe.tgsp.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.testing.Fixtures;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyFilesTest {
  @TempDir Path dir;

  @Test
  void writeThenRead_creatorAndFleetKeys_roundTripWithOwnerOnlyPrivateFiles() throws Exception {
    CreatorKeyPair creator = Fixtures.creator(1);
    FleetKeyPair fleet = Fixtures.fleet(2);
    KeyFiles.writeCreatorPrivate(creator, dir.resolve("creator.key"));
    KeyFiles.writeCreatorPublic(creator.publicKey(), dir.resolve("creator.pub"));
    KeyFiles.writeFleetPrivate(fleet, dir.resolve("fleet.key"));
    KeyFiles.writeFleetPublic(fleet.publicKey(), dir.resolve("fleet.pub"));
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("creator.key"))));
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("fleet.key"))));

    CreatorKeyPair readCreator = KeyFiles.readCreatorPrivate(dir.resolve("creator.key"));
    assertEquals(creator.publicKey().keyId(), readCreator.publicKey().keyId());
    assertEquals(
        creator.publicKey().keyId(),
        KeyFiles.readCreatorPublic(dir.resolve("creator.pub")).keyId());
    byte[] message = {1, 2, 3};
    HybridSignature.sign(readCreator, message, Fixtures.deterministicRandomForTesting(3))
        .verify(creator.publicKey(), message);

    FleetKeyPair readFleet = KeyFiles.readFleetPrivate(dir.resolve("fleet.key"));
    byte[] dataKey = new byte[32];
    dataKey[0] = 42;
    byte[] manifestHash = new byte[32];
    RecipientEntry entry =
        HybridKeyWrap.wrap(
            KeyFiles.readFleetPublic(dir.resolve("fleet.pub")),
            dataKey,
            manifestHash,
            Fixtures.deterministicRandomForTesting(4));
    assertArrayEquals(dataKey, HybridKeyWrap.unwrap(readFleet, entry, manifestHash));
    byte[] otherManifest = manifestHash.clone();
    otherManifest[0] = 1;
    assertThrows(
        KeyUnwrapException.class, () -> HybridKeyWrap.unwrap(readFleet, entry, otherManifest));
  }

  @Test
  void write_existingFile_isNeverOverwritten() throws Exception {
    Files.writeString(dir.resolve("creator.key"), "precious");
    assertThrows(
        FileAlreadyExistsException.class,
        () -> KeyFiles.writeCreatorPrivate(Fixtures.creator(1), dir.resolve("creator.key")));
    assertEquals("precious", Files.readString(dir.resolve("creator.key")));
  }

  @Test
  void read_keyIdThatDoesNotMatchTheKeys_isRefused() throws Exception {
    KeyFiles.writeCreatorPublic(Fixtures.creator(1).publicKey(), dir.resolve("a.pub"));
    String text = Files.readString(dir.resolve("a.pub"));
    String otherId = Fixtures.creator(2).publicKey().keyId();
    Files.writeString(
        dir.resolve("b.pub"),
        text.replaceAll("\"key_id\":\"[0-9a-f]+\"", "\"key_id\":\"" + otherId + "\""));
    KeyFileException e =
        assertThrows(
            KeyFileException.class, () -> KeyFiles.readCreatorPublic(dir.resolve("b.pub")));
    assertTrue(e.getMessage().contains("does not match"), e.getMessage());
  }

  @Test
  void read_wrongKindOfKeyFile_isRefused() throws Exception {
    KeyFiles.writeFleetPublic(Fixtures.fleet(2).publicKey(), dir.resolve("fleet.pub"));
    KeyFileException e =
        assertThrows(
            KeyFileException.class, () -> KeyFiles.readCreatorPublic(dir.resolve("fleet.pub")));
    assertTrue(e.getMessage().contains("tgsp-fleet-public-key"), e.getMessage());
  }
}
