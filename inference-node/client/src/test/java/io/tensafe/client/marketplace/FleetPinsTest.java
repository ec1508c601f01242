package io.tensafe.client.marketplace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.crypto.FleetPublicKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FleetPinsTest {
  private static final SecureRandom RANDOM = new SecureRandom();

  private static FleetPublicKey fleet(String id) {
    return FleetKeyPair.generate(id, RANDOM).publicKey();
  }

  @Test
  void aFleetSeenFirst_isPinned_andAnotherKeyForItLaterIsRefused(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("pins").resolve("known_fleets.json");
    FleetPublicKey real = fleet("fleet-a");
    assertEquals(List.of(real), FleetPins.load(file, List.of()).check(List.of(real)));
    assertTrue(Files.readString(file).contains(real.keyId()));
    // A later run, from the file: the same key passes, a substituted one is refused by name.
    FleetPins later = FleetPins.load(file, List.of());
    assertEquals(List.of(real), later.check(List.of(real)));
    FleetPublicKey substitute = fleet("fleet-a");
    IOException refused = assertThrows(IOException.class, () -> later.check(List.of(substitute)));
    assertTrue(refused.getMessage().contains("fleet-a"), refused.getMessage());
    assertTrue(refused.getMessage().contains(real.keyId()), refused.getMessage());
  }

  @Test
  void aKeyGivenOutOfBand_isUsedEvenUnlisted_andOverridesTheListing(@TempDir Path dir)
      throws Exception {
    FleetPublicKey given = fleet("fleet-b");
    FleetPins pins = FleetPins.load(dir.resolve("known_fleets.json"), List.of(given));
    assertEquals(List.of(given), pins.check(List.of()));
    assertThrows(IOException.class, () -> pins.check(List.of(fleet("fleet-b"))));
    assertThrows(
        IOException.class,
        () -> FleetPins.load(dir.resolve("none.json"), List.of()).check(List.of()));
  }

  @Test
  void aFleetListedAfterTheFirstContact_isNotTrusted_unlessTheUserOptsIn(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("known_fleets.json");
    FleetPublicKey first = fleet("fleet-a");
    FleetPins.load(file, List.of()).check(List.of(first));
    FleetPublicKey added = fleet("fleet-zz");
    assertEquals(List.of(first), FleetPins.load(file, List.of()).check(List.of(first, added)));
    assertThrows(IOException.class, () -> FleetPins.load(file, List.of()).check(List.of(added)));
    assertEquals(
        List.of(first, added), FleetPins.load(file, List.of(), true).check(List.of(first, added)));
  }

  @Test
  void givenKeys_areTheOnlyOnesUsed(@TempDir Path dir) throws Exception {
    FleetPublicKey given = fleet("fleet-b");
    FleetPins pins = FleetPins.load(dir.resolve("known_fleets.json"), List.of(given));
    assertEquals(List.of(given), pins.check(List.of(given, fleet("fleet-zz"))));
  }
}
