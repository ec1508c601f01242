package io.tensafe.node.privatemode;

import io.tensafe.kernels.params.EncodingHeader;
import io.tensafe.kernels.params.Parameters;
import io.tensafe.tgsp.session.FrameLimits;

/** Frame limits that follow from a session's parameters. */
public final class PrivateLimits {
  /** The most ciphertexts one frame may carry (a prefill of many tokens over three sites). */
  public static final int MAX_CIPHERTEXTS = 0xFFFF;

  private PrivateLimits() {}

  /** One ciphertext of two limbs, c1 in full: header, limb count, scale, 2 × 2 × N residues. */
  public static int ciphertextBytes(Parameters p) {
    return EncodingHeader.SIZE + 1 + 8 + 2 * 2 * 8 * p.ringDegree();
  }

  /** What a client accepts from the node: up to 1 GiB per answer. */
  public static FrameLimits answers(Parameters p) {
    return new FrameLimits(1 << 30, MAX_CIPHERTEXTS, ciphertextBytes(p));
  }
}
