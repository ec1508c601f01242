package io.tensafe.node.privatemode;

import io.tensafe.node.runtime.InputPrivacy;
import io.tensafe.node.runtime.LoraAdapter;
import io.tensafe.tgsp.session.FrameLimits;
import io.tensafe.tgsp.session.FrameOrder;
import io.tensafe.tgsp.session.MalformedFrameException;
import io.tensafe.tgsp.sessionauth.FrameAuth;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * A node session in this process behind a {@link FrameExchange}, for tests: it answers the client's
 * frames directly and keeps every frame it receives, in order. Both ends share {@code auth}, as a
 * client and a node of the fleet it wrapped the secret to do.
 */
record InProcessNode(NodeSession session, List<byte[]> received, FrameAuth auth)
    implements FrameExchange {
  static final FrameLimits LIMITS =
      new FrameLimits(1 << 28, PrivateLimits.MAX_CIPHERTEXTS, 1 << 20);

  /** A session of {@code adapter} at the bounds a pack would sign, with or without DP noise. */
  static InProcessNode open(
      LoraAdapter adapter,
      SitePlan plan,
      ClientKeys keys,
      InputPrivacy policy,
      FrameOrder order,
      boolean noise)
      throws Exception {
    PrivateBounds bounds = PrivateBounds.asPackWouldSign(adapter);
    SecureRandom random = SecureRandom.getInstance("DRBG");
    FrameAuth auth = freshAuth();
    NodeSession session =
        noise
            ? NodeSession.open(
                adapter, bounds, plan, keys.publicKeys(), auth, policy, order, random)
            : NodeSession.openWithoutNoiseForTesting(
                adapter, bounds, plan, keys.publicKeys(), auth, policy, order, random);
    return new InProcessNode(session, new ArrayList<>(), auth);
  }

  /** Frame keys from a fresh secret, for both ends of a test session. */
  static FrameAuth freshAuth() {
    byte[] secret = new byte[FrameAuth.SECRET_BYTES];
    new SecureRandom().nextBytes(secret);
    return FrameAuth.fromSecretForTesting(secret);
  }

  /**
   * The keys both ends hold once bound to this session's opening: what a test playing the node (or
   * sealing a client frame itself) signs with.
   */
  FrameAuth boundAuth() {
    return auth.bind(session.terms().opening(session.plan()));
  }

  /** The client's half of this session. */
  ClientDeltas client(ClientKeys keys, SitePlan plan) {
    return new ClientDeltas(keys, plan, this, session.terms(), auth);
  }

  @Override
  public byte[] exchange(byte[] frame) throws IOException {
    received.add(frame);
    try {
      return session.answer(frame, LIMITS);
    } catch (MalformedFrameException e) {
      throw new IOException(e);
    }
  }
}
