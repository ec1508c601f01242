package io.tensafe.tgsp.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class FleetChallengeTest {
  private static final SecureRandom RANDOM = new SecureRandom();

  @Test
  void theFleetKey_answersItsChallenge() throws Exception {
    FleetKeyPair fleet = FleetKeyPair.generate("fleet-a", RANDOM);
    byte[] nonce = RANDOM.generateSeed(FleetChallenge.NONCE_BYTES);
    RecipientEntry c = FleetChallenge.wrap(fleet.publicKey(), "id-1", "node-1", nonce, RANDOM);
    assertArrayEquals(nonce, FleetChallenge.answer(fleet, "id-1", "node-1", c));
  }

  @Test
  void anotherKey_anotherName_orAnotherId_cannotAnswer() {
    FleetKeyPair fleet = FleetKeyPair.generate("fleet-a", RANDOM);
    FleetKeyPair other = FleetKeyPair.generate("fleet-a", RANDOM);
    byte[] nonce = RANDOM.generateSeed(FleetChallenge.NONCE_BYTES);
    RecipientEntry c = FleetChallenge.wrap(fleet.publicKey(), "id-1", "node-1", nonce, RANDOM);
    assertThrows(KeyUnwrapException.class, () -> FleetChallenge.answer(other, "id-1", "node-1", c));
    assertThrows(KeyUnwrapException.class, () -> FleetChallenge.answer(fleet, "id-1", "node-2", c));
    assertThrows(KeyUnwrapException.class, () -> FleetChallenge.answer(fleet, "id-2", "node-1", c));
  }
}
