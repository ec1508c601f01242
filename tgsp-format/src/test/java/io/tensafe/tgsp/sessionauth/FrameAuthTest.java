package io.tensafe.tgsp.sessionauth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tensafe.tgsp.crypto.FleetKeyPair;
import io.tensafe.tgsp.session.FrameKind;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.session.SessionFrame;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameAuthTest {
  private static final FrameLimits LIMITS = new FrameLimits(1 << 16, 8, 1024);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final List<byte[]> KEYS = List.of(new byte[] {1, 2, 3}, new byte[] {4});

  private static byte[] frame(long sequence) {
    byte[] nonce = new byte[SessionFrame.NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    return new SessionFrame(
            FrameKind.ROUND_ONE, sequence, 0, 0, 1, nonce, List.of(new byte[] {9, 8, 7}))
        .toBytes();
  }

  @Test
  void aNodeOfTheOfferedFleet_agreesOnTheKeys_andOthersCannot() throws Exception {
    FleetKeyPair mine = FleetKeyPair.generate("fleet-a", RANDOM);
    FleetKeyPair other = FleetKeyPair.generate("fleet-b", RANDOM);
    FleetKeyPair stranger = FleetKeyPair.generate("fleet-c", RANDOM);
    FrameAuth.Offer offer =
        FrameAuth.offer(List.of(mine.publicKey(), other.publicKey()), KEYS, RANDOM);
    FrameAuth client = offer.byKeyId().get(mine.publicKey().keyId());
    FrameAuth node = FrameAuth.accept(mine, offer.wrap(), KEYS);
    byte[] sealed = client.seal(frame(0), FrameAuth.Direction.CLIENT_TO_NODE);
    node.verify(sealed, FrameAuth.Direction.CLIENT_TO_NODE);
    SessionFrame read = SessionFrame.read(sealed, LIMITS);
    assertEquals(0, read.sequence());
    // Another fleet's node unwraps its own secret: its keys fail this fleet's frames.
    FrameAuth otherNode = FrameAuth.accept(other, offer.wrap(), KEYS);
    assertThrows(
        MalformedFrameException.class,
        () -> otherNode.verify(sealed, FrameAuth.Direction.CLIENT_TO_NODE));
    assertThrows(
        MalformedFrameException.class, () -> FrameAuth.accept(stranger, offer.wrap(), KEYS));
    // A wrap moved to a session with other CKKS keys does not open.
    assertThrows(
        MalformedFrameException.class,
        () -> FrameAuth.accept(mine, offer.wrap(), List.of(new byte[] {1, 2, 3})));
  }

  @Test
  void aFlippedBit_anotherDirection_orAnotherSession_isRefused() throws Exception {
    byte[] secret = new byte[FrameAuth.SECRET_BYTES];
    RANDOM.nextBytes(secret);
    FrameAuth auth = FrameAuth.fromSecretForTesting(secret);
    byte[] sealed = auth.seal(frame(3), FrameAuth.Direction.NODE_TO_CLIENT);
    auth.verify(sealed, FrameAuth.Direction.NODE_TO_CLIENT);
    for (int i = 0; i < sealed.length; i++) {
      byte[] flipped = sealed.clone();
      flipped[i] ^= 1;
      int at = i;
      assertThrows(
          MalformedFrameException.class,
          () -> auth.verify(flipped, FrameAuth.Direction.NODE_TO_CLIENT),
          "byte " + at);
    }
    assertThrows(
        MalformedFrameException.class,
        () -> auth.verify(sealed, FrameAuth.Direction.CLIENT_TO_NODE));
    byte[] otherSecret = secret.clone();
    otherSecret[0] ^= 1;
    assertThrows(
        MalformedFrameException.class,
        () ->
            FrameAuth.fromSecretForTesting(otherSecret)
                .verify(sealed, FrameAuth.Direction.NODE_TO_CLIENT));
    assertThrows(
        MalformedFrameException.class,
        () -> auth.verify(new byte[5], FrameAuth.Direction.NODE_TO_CLIENT));
  }

  @Test
  void theNonce_travelsInTheHeader() throws Exception {
    byte[] nonce = new byte[SessionFrame.NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    SessionFrame f = new SessionFrame(FrameKind.ROUND_TWO, 1, 0, 0, 1, nonce, List.of());
    assertArrayEquals(nonce, SessionFrame.read(f.toBytes(), LIMITS).nonce());
  }
}
